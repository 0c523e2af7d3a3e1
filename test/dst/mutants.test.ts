/**
 * The simulation can fail: with a rule of the controller deliberately
 * broken through a test-only seam, schedules within the default count
 * (2,000, `npm run test:dst`) break the invariant that rule protects.
 */
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { runSchedules } from './runner.js';

/** The mutant: a reviewer's failed call ends the run `clear` (every other role as written). */
const broken = vi.hoisted(() => ({ clearOnReviewerFailure: false }));
vi.mock('../../src/core/failure-map.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/core/failure-map.js')>();
  const { completedEnd } = await import('../../src/core/run-state.js');
  return {
    ...real,
    endForCallFailure: (...args: Parameters<typeof real.endForCallFailure>) =>
      broken.clearOnReviewerFailure && args[1] === 'reviewer'
        ? completedEnd('clear', 'clear')
        : real.endForCallFailure(...args),
  };
});

const DEFAULT_SCHEDULES = 2000;
const scratch = () =>
  mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'revloop-dst-mutant-'));

describe('the simulation catches a broken rule', () => {
  it('ending clear when a reviewer call failed breaks invariant 1', { timeout: 600_000 }, async () => {
    broken.clearOnReviewerFailure = true;
    try {
      const s = await runSchedules({
        seed: 1,
        schedules: DEFAULT_SCHEDULES,
        scratch: scratch(),
        maxFailures: 1,
      });
      const first = s.failed[0];
      expect(first, `no schedule of ${s.schedules} caught the mutant`).toBeDefined();
      expect(first?.violations.map((v) => v.invariant)).toContain('1 no missing result is clear');
    } finally {
      broken.clearOnReviewerFailure = false;
    }
  });
});
