/** The planners' own tables (issue 16, point 2): each row a recorded fact and the decision it must give. */
import { describe, expect, it } from 'vitest';
import { planDecision } from '../../src/core/decide-plan.js';
import type { FindingRow } from '../../src/core/ledger.js';
import { refutationOf, refutationTargets } from '../../src/core/refute-plan.js';
import { findingsToGate, gateFindings } from '../../src/core/review-gating.js';
import { CONTROLLER_REVIEWER } from '../../src/core/run-report.js';
import type { ReportedFinding } from '../../src/core/types.js';
import { sha256 } from '../../src/io/hash.js';

const CRITERIA = '- R1: totals are integer cents';
const SCENARIO = 'when the cart is empty, total() returns NaN and the order is charged 0';
const f = (over: Partial<ReportedFinding> = {}): ReportedFinding => ({
  severity: 'MAJOR',
  file: 'src/a.ts',
  line: 10,
  claim: 'wrong total',
  failureScenario: SCENARIO,
  ...over,
});
const policy = { requireScenario: true, scopeLock: true };

describe('review planner: reported findings + policy + scope facts -> gated findings with reasons', () => {
  const calls = [
    {
      reviewer: 'a',
      callKey: 'ka',
      reply: { verdict: 'findings' as const, findings: [f(), f({ file: 'vendor/x.js' })] },
    },
    {
      reviewer: 'b',
      callKey: 'kb',
      reply: { verdict: 'findings' as const, findings: [f({ failureScenario: 'could cause issues' })] },
    },
  ];
  const ignored = (p: string) => (p.startsWith('vendor/') ? 'vendor/**' : null);
  const { toGate, dropped } = findingsToGate(calls, ignored, (k, i) => `${k}#${i}`, sha256);

  it('drops a finding on an ignored path with its rule, and ids the rest in recorded order', () => {
    expect(dropped).toEqual([
      { reviewer: 'a', callKey: 'ka', index: 1, file: 'vendor/x.js', rule: 'vendor/**' },
    ]);
    expect(toGate.map((g) => g.id)).toEqual(['ka#0', 'kb#0']);
  });

  it("keeps one per fingerprint across a reviewer's calls (chunks), not within one call nor across reviewers", () => {
    const call = (reviewer: string, callKey: string, n: number) => ({
      reviewer,
      callKey,
      reply: {
        verdict: 'findings' as const,
        findings: Array.from({ length: n }, (_, i) => f({ line: i + 1 })),
      },
    });
    const got = findingsToGate(
      [call('a', 'c0', 2), call('a', 'c1', 1), call('b', 'c2', 1)],
      () => null,
      (k, i) => `${k}#${i}`,
      sha256,
    );
    expect(got.toGate.map((g) => g.id)).toEqual(['c0#0', 'c0#1', 'c2#0']);
    // A review recorded before the fold (no hash): every finding, as it was recorded.
    const before = findingsToGate(
      [call('a', 'c0', 2), call('a', 'c1', 1)],
      () => null,
      (k, i) => `${k}#${i}`,
      null,
    );
    expect(before.toGate.map((g) => g.id)).toEqual(['c0#0', 'c0#1', 'c1#0']);
  });

  it.each([
    ['kept: concrete scenario, never passed', {}, { kind: 'kept' }, 'MAJOR'],
    [
      'scope lock: re-raise on a line unchanged since the pass',
      { 'ka#0': { passedAt: 'p1', touchedSincePass: false } },
      { kind: 'demoted', rule: 'scope_lock', from: 'MAJOR', passedAt: 'p1' },
      'MINOR',
    ],
    [
      'kept: the line changed since the pass',
      { 'ka#0': { passedAt: 'p1', touchedSincePass: true } },
      { kind: 'kept' },
      'MAJOR',
    ],
  ] as const)('%s', (_name, scope, gate, severity) => {
    const [a] = gateFindings(toGate, scope, CRITERIA, policy);
    expect(a).toMatchObject({ gate, severity });
  });

  it('invariant 9: a vague blocker is MINOR whatever its scope', () => {
    const [, b] = gateFindings(toGate, {}, CRITERIA, policy);
    expect(b).toMatchObject({
      gate: { kind: 'demoted', rule: 'no_scenario', from: 'MAJOR' },
      severity: 'MINOR',
    });
  });
});

const row = (over: Partial<FindingRow>): FindingRow => ({
  id: 'x',
  runId: 'r',
  round: 1,
  reviewer: 'a',
  revision: 'h1',
  callKey: 'k',
  index: 0,
  reported: f(),
  severity: 'MAJOR',
  gate: { kind: 'kept' },
  refutation: null,
  dispute: null,
  settlement: null,
  ...over,
});
const budgets = { rounds: 5, wallSeconds: 60, costUsd: 1 };

describe('refute planner: which blockers go to the refuter, what each decision does', () => {
  const rows = [
    row({ id: 'b1' }),
    row({ id: 'minor', severity: 'MINOR' }),
    row({ id: 'old', round: 0 }),
    row({ id: 'prot', reviewer: CONTROLLER_REVIEWER }),
  ];
  it.each([
    ["a refuter and money left: the round's reviewer blockers", { hasRefuter: true, spentUsd: 0.5 }, ['b1']],
    ['no refuter: none', { hasRefuter: false, spentUsd: 0 }, []],
    ['the budget spent: none (invariant 12)', { hasRefuter: true, spentUsd: 1 }, []],
  ] as const)('%s', (_n, facts, ids) => {
    expect(refutationTargets(rows, 1, { ...facts, budgets }).targets.map((x) => x.id)).toEqual(ids);
  });
  it('caps the blockers sent per reply; the rest are named, never sent', () => {
    const many = [
      row({ id: 'a0', callKey: 'k1', index: 0 }),
      row({ id: 'a1', callKey: 'k1', index: 1 }),
      row({ id: 'a2', callKey: 'k1', index: 2 }),
      row({ id: 'b0', callKey: 'k2', index: 0 }),
      row({ id: 'minor', callKey: 'k1', index: 3, severity: 'MINOR' }),
    ];
    const plan = refutationTargets(many, 1, { hasRefuter: true, spentUsd: 0, budgets, maxPerReply: 2 });
    expect(plan.targets.map((x) => x.id)).toEqual(['a0', 'a1', 'b0']);
    expect(plan.overCap).toEqual(['a2']);
    const none = refutationTargets(many, 1, { hasRefuter: false, spentUsd: 0, budgets, maxPerReply: 2 });
    expect(none).toEqual({ targets: [], overCap: [], remembered: [] });
  });
  it('records the decision with the refuter and the model it reported', () => {
    expect(
      refutationOf(
        { decision: 'refuted', reason: 'guarded' },
        { callKey: 'rk', refuter: 'skeptic', modelId: 'm1' },
      ),
    ).toEqual({ decision: 'refuted', by: 'skeptic (m1)', reason: 'guarded', callKey: 'rk' });
  });
});

describe('decide planner: round facts -> open blockers, progress evidence, next step or stop', () => {
  const base = {
    round: 1,
    sameClaim: (x: FindingRow) => x.id,
    progressFacts: null,
    progressBefore: [],
    budgets,
    hasFixer: true,
    reviewsComplete: true,
    coverageComplete: undefined,
    stopWindow: 2,
    spentUsd: 0,
  };
  const progressFacts = {
    checksBefore: null,
    checksAfter: null,
    priorBlockers: [],
    raised: [],
    settledSince: [],
    diffLinesBefore: 10,
    diffLinesAfter: 10,
    shrinkRatio: 0.5,
  };
  it.each([
    ['no blocker: clear', [], {}, { kind: 'stop', outcome: 'clear', stopReason: 'clear' }],
    ['a blocker and a fixer: fix it', [row({ id: 'b1' })], {}, { kind: 'fix', blockers: ['b1'] }],
    [
      'a blocker, no fixer: review only',
      [row({ id: 'b1' })],
      { hasFixer: false },
      { kind: 'stop', outcome: 'findings', stopReason: 'review_only' },
    ],
    [
      'a refuted finding does not block',
      [row({ refutation: { decision: 'refuted', by: 'r', reason: 'x', callKey: 'k' } })],
      {},
      { kind: 'stop', outcome: 'clear', stopReason: 'clear' },
    ],
    [
      'a protected path waits for a person',
      [row({ id: 'p', reviewer: CONTROLLER_REVIEWER })],
      {},
      { kind: 'stop', outcome: 'findings', stopReason: 'awaiting_settlement' },
    ],
    [
      'over the cost budget: findings / budget, never clear',
      [],
      { spentUsd: 2 },
      { kind: 'stop', outcome: 'findings', stopReason: 'budget' },
    ],
    [
      'round 3 without progress after round 2 without: no_progress',
      [row({ id: 'b3', round: 3 })],
      { round: 3, progressBefore: [true, false], progressFacts },
      { kind: 'stop', outcome: 'findings', stopReason: 'no_progress' },
    ],
  ] as const)('%s', (_n, findings, over, decision) => {
    const plan = planDecision({ ...base, findings: [...findings], ...over });
    expect(plan.decision).toEqual(decision);
  });

  it('judges progress on what the round raised, read from its findings (a re-raise is not a fix)', () => {
    const prior = {
      id: 'b1',
      reviewer: 'a',
      file: 'src/a.ts',
      touchedByFix: true,
      newRange: { start: 10, end: 10 },
      citedChecks: [],
      disputed: false,
    };
    const facts = { ...progressFacts, priorBlockers: [prior] };
    const again = planDecision({
      ...base,
      round: 2,
      progressBefore: [true],
      progressFacts: facts,
      findings: [row({ id: 'b2', round: 2, severity: 'MINOR' })],
    });
    expect(again.evidence).toMatchObject({ progress: false, fixed: [] });
    expect(again.progress).toEqual([true, false]);
    const gone = planDecision({
      ...base,
      round: 2,
      progressBefore: [true],
      progressFacts: facts,
      findings: [],
    });
    expect(gone.evidence).toMatchObject({ progress: true, fixed: ['b1'] });
    expect(gone.openBlockers).toEqual([]);
  });

  it('invariant 1: an incomplete review is never decided', () => {
    expect(() => planDecision({ ...base, findings: [], reviewsComplete: false })).toThrow(/invariant 1/);
  });
});
