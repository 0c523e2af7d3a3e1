/**
 * The simulation can fail: with a rule of the controller deliberately
 * broken through a test-only seam, schedules within the default count
 * (2,000, `npm run test:dst`) break the invariant that rule protects. The
 * second mutant is on the chunked rounds' group commit: it reaches the
 * ledger only through schedules that review in chunks.
 */
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { runSchedules } from './runner.js';

/** The mutant: a reviewer's failed call ends the run `clear` (every other role as written). */
const broken = vi.hoisted(() => ({ on: false }));
vi.mock('../../src/core/failure-map.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/core/failure-map.js')>();
  const { completedEnd } = await import('../../src/core/run-state.js');
  return {
    ...real,
    endForCallFailure: (...args: Parameters<typeof real.endForCallFailure>) =>
      broken.on && args[1] === 'reviewer' ? completedEnd('clear', 'clear') : real.endForCallFailure(...args),
  };
});

/** The mutant: a chunked round's group commit records the first verdict of each transaction only. */
const dropsBatched = vi.hoisted(() => ({ on: false }));
vi.mock('../../src/loop/calls/verdict-batch.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/loop/calls/verdict-batch.js')>();
  class FirstOnly extends real.VerdictBatch {
    constructor(...[ctx, lease, size]: ConstructorParameters<typeof real.VerdictBatch>) {
      const store = ctx.deps.store;
      super(
        {
          ledger: ctx.ledger,
          deps: {
            store: {
              recordVerdicts: (l, items) =>
                store.recordVerdicts(l, dropsBatched.on ? items.slice(0, 1) : items),
            },
          },
        },
        lease,
        size,
      );
    }
  }
  return { ...real, VerdictBatch: FirstOnly };
});

const DEFAULT_SCHEDULES = 2000;
const scratch = () =>
  mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'revloop-dst-mutant-'));

/** Runs the default schedules with `mutant` switched on; the first failing one must break `invariant`. */
async function caught(mutant: { on: boolean }, invariant: string): Promise<void> {
  mutant.on = true;
  try {
    const s = await runSchedules({
      seed: 1,
      schedules: DEFAULT_SCHEDULES,
      scratch: scratch(),
      maxFailures: 1,
    });
    const first = s.failed[0];
    expect(first, `no schedule of ${s.schedules} caught the mutant`).toBeDefined();
    expect(first?.violations.map((v) => v.invariant)).toContain(invariant);
  } finally {
    mutant.on = false;
  }
}

describe('the simulation catches a broken rule', () => {
  it('ending clear when a reviewer call failed breaks invariant 1', { timeout: 600_000 }, () =>
    caught(broken, '1 no missing result is clear'),
  );

  it('a group commit that loses verdicts breaks invariant 6 (replay)', { timeout: 600_000 }, () =>
    caught(dropsBatched, '6 replay'),
  );
});
