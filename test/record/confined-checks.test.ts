/**
 * The record's `confined` is the conjunction over every process of the run:
 * the checks run at the base (recorded with round 0) count like the others.
 */
import { describe, expect, it } from 'vitest';
import type { CheckResult } from '../../src/core/progress.js';
import type { RunReport } from '../../src/core/run-report.js';
import { buildStatement } from '../../src/record/statement.js';
import { attempt, SHA, sampleReport } from '../report/fixtures.js';

const check = (confined: boolean): CheckResult => ({
  name: 'unit',
  exitCode: confined ? 1 : 0,
  passed: !confined,
  tail: '',
  durationMs: 1,
  ...(confined ? { confined: true as const } : {}),
});

function withChecks(atBase: CheckResult): RunReport {
  const r = sampleReport();
  r.attempts = [attempt(1, 'correctness', { confined: true })];
  r.stages = [
    {
      runId: r.run.id,
      round: 0,
      stage: 'checks',
      snapshotKey: r.run.snapshotKey,
      completedAt: 1,
      result: { head: SHA.head, results: [check(true)], base: { commit: SHA.mergeBase, results: [atBase] } },
    },
  ];
  return r;
}

const confined = (r: RunReport) => buildStatement(r, { finalDiffDigest: 'e'.repeat(64) }).predicate.confined;

describe("the record's confined counts the base's checks", () => {
  it('every process confined, the base check too: confined', () => {
    expect(confined(withChecks({ ...check(true), passed: true }))).toBe(true);
  });
  it('the base check ran unconfined: not confined', () => {
    expect(confined(withChecks(check(false)))).toBe(false);
  });
});

describe("the record's confined counts the calls its reused verdicts came from", () => {
  function allReused(source: { confined?: boolean }): RunReport {
    const r = sampleReport();
    r.attempts = [];
    r.stages = [];
    r.verdicts = r.verdicts.map((v) => ({
      ...v,
      costUsd: 0,
      reusedFrom: { callKey: 'k0', runId: 'run-earlier', revision: SHA.head, ...source },
    }));
    return r;
  }
  it('a run whose every verdict was reused from confined calls made no attempt, and is confined', () => {
    expect(allReused({}).verdicts.length).toBeGreaterThan(0);
    expect(confined(allReused({ confined: true }))).toBe(true);
  });
  it('one source unconfined, or not known (a row from before it was kept): not confined', () => {
    expect(confined(allReused({ confined: false }))).toBe(false);
    expect(confined(allReused({}))).toBe(false);
  });
});
