/**
 * Issue 15, point 12: a full disk under .revloop/records after the ledger says
 * the run completed. The record write fails with one line naming the path and
 * exit 10; the ledger keeps the run's end; `resume` writes the record again once
 * there is room. A real full filesystem: a 64 KiB tmpfs mounted on the records
 * directory (needs root and mount; skipped with the reason otherwise).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseConfig, ensureBuilt, makeReviewRepo, pass, type ReviewRepo, runCli } from '../loop/helpers.js';

let r: ReviewRepo;
let records: string;
let mounted = false;
let whyNot = '';

beforeAll(async () => {
  ensureBuilt();
  r = await makeReviewRepo({ config: (a) => baseConfig(a) });
  records = join(r.dir, '.revloop', 'records');
  mkdirSync(records, { recursive: true });
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', records], { stdio: 'pipe' });
    mounted = true;
  } catch (err) {
    whyNot = String((err as { stderr?: Buffer }).stderr ?? err).trim();
  }
}, 120_000);
afterAll(async () => {
  if (mounted) execFileSync('umount', [records]);
  await r?.cleanup();
});

const fill = () => {
  // Fill every block: the write that runs out throws, leaving the filesystem full.
  for (let i = 0; ; i++) {
    try {
      writeFileSync(join(records, `filler-${i}`), Buffer.alloc(16 * 1024, 1));
    } catch {
      return;
    }
  }
};

describe('a full disk under .revloop/records (point 12)', () => {
  it('says so in one line, exit 10, keeps the ledger, and resume writes the record later', async (t) => {
    if (!mounted) t.skip(`cannot mount a tmpfs here: ${whyNot}`);
    fill();
    r.plan({ reviewer: [{ reply: pass }] });
    const res = await runCli(['review', '--head', 'topic'], { cwd: r.dir });
    expect(res.code, res.stderr).toBe(10);
    const lines = res.stderr.trimEnd().split('\n');
    expect(lines, res.stderr).toHaveLength(1);
    const m = /run (\S+) is completed \(clear\) in the ledger/.exec(lines[0] ?? '');
    expect(m, lines[0]).not.toBeNull();
    const runId = m?.[1] ?? '';
    expect(lines[0]).toContain(`cannot write ${join(records, `${runId}.json`)}: no space left on device`);
    expect(lines[0]).toContain(`revloop resume ${runId}`);
    expect(lines[0]).not.toMatch(/internal error|\n\s+at /);

    const status = await runCli(['status', runId, '--json'], { cwd: r.dir });
    expect(status.json).toMatchObject({ status: 'completed', outcome: 'clear', record: null });

    for (let i = 0; existsSync(join(records, `filler-${i}`)); i++) rmSync(join(records, `filler-${i}`));
    const again = await runCli(['resume', runId, '--json'], { cwd: r.dir });
    expect(again.code, again.stderr).toBe(0);
    expect(again.json?.record).toBe(join(records, `${runId}.json`));
    const verify = await runCli(['verify', join(records, `${runId}.json`)], { cwd: r.dir });
    expect(verify.code, verify.stderr + verify.stdout).toBe(0);
  }, 120_000);
});
