/**
 * The simulation is deterministic across schedules (issue 20, point 2): a
 * schedule run inside a long run ends in exactly the state it ends in when
 * run alone, so a seed that fails in a run of 100,000 reproduces with
 * `--schedules 1 --seed S`. Each schedule's digest covers the ledger's final
 * state and its whole step trace; the schedules run alone first (in this
 * process, before any other ran, and in a process of their own through
 * `npm run test:dst`), then the range in one run.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runSchedules, scheduleSeed } from './runner.js';
import type { ScheduleResult } from './schedule.js';

const scratch = () => mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'revloop-dst-det-'));
const FROM = 7_000;
const COUNT = 300;
/** Rerun alone: spread over the range, late ones included (they follow the most others). */
const SAMPLE = [0, 1, 57, 150, 298, 299];

const digests = async (seed: number, schedules: number): Promise<ScheduleResult[]> => {
  const all: ScheduleResult[] = [];
  await runSchedules({
    seed,
    schedules,
    scratch: scratch(),
    maxFailures: schedules + 1,
    onSchedule: (r) => all.push(r),
  });
  return all;
};

describe('deterministic simulation across schedules', () => {
  it('a schedule ends in the same ledger and trace alone as inside a long run', {
    timeout: 600_000,
  }, async () => {
    const alone = new Map<number, string>();
    for (const i of SAMPLE) {
      const [r] = await digests(scheduleSeed(FROM, i), 1);
      alone.set(i, r?.digest ?? 'none');
    }
    const long = await digests(FROM, COUNT);
    expect(long).toHaveLength(COUNT);
    const differ = SAMPLE.filter((i) => long[i]?.digest !== alone.get(i)).map((i) => scheduleSeed(FROM, i));
    expect(differ, 'seeds whose digest alone differs from the long run').toEqual([]);
    // And the same schedule twice in a row in one run (state left by the first must not reach the second).
    const twice = await digests(scheduleSeed(FROM, 57), 1);
    expect(twice[0]?.digest).toBe(alone.get(57));
  });

  it('npm run test:dst -- --schedules 1 prints the digest a long run saw', { timeout: 300_000 }, async () => {
    const seed = scheduleSeed(FROM, 150);
    const [inProcess] = await digests(seed, 1);
    const out = execFileSync(
      process.execPath,
      ['scripts/dst.mjs', '--schedules', '1', '--seed', String(seed)],
      {
        encoding: 'utf8',
        env: { ...process.env, DST_PRINT_DIGESTS: '1' },
      },
    );
    expect(out).toContain(`digest ${seed} ${inProcess?.digest}`);
  });
});
