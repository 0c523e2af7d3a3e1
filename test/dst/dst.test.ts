/**
 * Deterministic simulation of the real driver (issue 20, point 2): a bounded
 * count of seeded schedules inside `npm test`; `npm run test:dst` runs as
 * many as asked. Each schedule drives the real loop over the in-memory store
 * and the simulated git, agents, clock and checks, with faults at every port
 * call, then judges invariants 1–14 and replay on the ledger.
 */
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeFailure, runSchedules } from './runner.js';

const scratch = () => mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'revloop-dst-test-'));

describe('deterministic simulation', () => {
  // Bounded by the schedule count; the limit is several times what it takes on a loaded 2-core machine.
  it('2,000 schedules hold invariants 1–14 and replay identically', { timeout: 1_200_000 }, async () => {
    const s = await runSchedules({ seed: 20_000, schedules: 2000, scratch: scratch() });
    expect(s.failed.map((r) => describeFailure(r))).toEqual([]);
    expect(s.schedules).toBe(2000);
    // The schedules reach the outcomes and the faults they are meant to.
    expect(s.crashes).toBeGreaterThan(150);
    expect(Object.keys(s.ends).some((e) => e.startsWith('completed/clear'))).toBe(true);
    expect(Object.keys(s.ends).some((e) => e.startsWith('completed/findings'))).toBe(true);
    expect(Object.keys(s.ends).some((e) => e.startsWith('failed/'))).toBe(true);
    expect(Object.keys(s.ends).some((e) => e === 'aborted/superseded')).toBe(true);
  });
});
