import { describe, expect, it } from 'vitest';
import type { RoundDecision } from '../../src/core/decide.js';
import type {
  FindingRow,
  GateDecision,
  Refutation,
  RoundRow,
  RunRow,
  Settlement,
} from '../../src/core/ledger.js';
import { isBlocker, notBlockingBecause, roundLog } from '../../src/core/run-report.js';
import type { Severity } from '../../src/core/types.js';

const refuted: Refutation = {
  decision: 'refuted',
  by: 'refuter',
  reason: 'the guard on line 3 handles it',
  callKey: 'ck-r',
};
const upheldRef: Refutation = { decision: 'upheld', by: 'refuter', reason: 'real', callKey: 'ck-r' };
const settle = (decision: Settlement['decision']): Settlement => ({
  by: 'alice',
  decision,
  note: null,
  at: 1,
});
const demoted: GateDecision = { kind: 'demoted', rule: 'no_scenario', from: 'MAJOR' };
const scopeDemoted: GateDecision = { kind: 'demoted', rule: 'scope_lock', from: 'MODERATE', passedAt: 'abc' };

let next = 0;
const row = (over: Partial<FindingRow> & { reportedSeverity?: Severity } = {}): FindingRow => {
  const { reportedSeverity, ...rest } = over;
  const i = next++;
  return {
    id: `f${i}`,
    runId: 'run-1',
    round: 1,
    reviewer: 'correctness',
    revision: 'h1',
    callKey: 'ck',
    index: i,
    reported: {
      severity: reportedSeverity ?? over.severity ?? 'MAJOR',
      file: 'src/a.ts',
      line: 10 + i,
      claim: `claim ${i}`,
    },
    severity: 'MAJOR',
    gate: { kind: 'kept' },
    refutation: null,
    dispute: null,
    settlement: null,
    ...rest,
  };
};

describe('invariants 9, 10 and settlement: what blocks', () => {
  const cases: [
    string,
    Partial<FindingRow> & { reportedSeverity?: Severity },
    ReturnType<typeof notBlockingBecause>,
  ][] = [
    ['a kept MAJOR blocks', {}, null],
    ['a kept MODERATE blocks', { severity: 'MODERATE' }, null],
    ['a MINOR does not', { severity: 'MINOR' }, 'minor'],
    ['upheld by the refuter still blocks', { refutation: upheldRef }, null],
    ['refuted does not block (invariant 10)', { refutation: refuted }, 'refuted'],
    [
      'demoted by gating (invariant 9)',
      { severity: 'MINOR', reportedSeverity: 'MAJOR', gate: demoted },
      'demoted',
    ],
    [
      'demoted by scope lock (invariant 11)',
      { severity: 'MINOR', reportedSeverity: 'MODERATE', gate: scopeDemoted },
      'demoted',
    ],
    ['overturned by a person', { settlement: settle('overturned') }, 'overturned'],
    [
      'overturned beats an upheld refutation',
      { refutation: upheldRef, settlement: settle('overturned') },
      'overturned',
    ],
    ['an upheld settlement beats a refutation', { refutation: refuted, settlement: settle('upheld') }, null],
    ['a dispute alone still blocks (awaiting a person)', { dispute: { reason: 'not a bug' } }, null],
    [
      'a dispute a person overturned does not block',
      { dispute: { reason: 'not a bug' }, settlement: settle('overturned') },
      'overturned',
    ],
    [
      'a dispute a person upheld still blocks',
      { dispute: { reason: 'not a bug' }, settlement: settle('upheld') },
      null,
    ],
  ];
  it.each(cases)('%s', (_n, over, because) => {
    const f = row(over);
    expect(notBlockingBecause(f)).toBe(because);
    expect(isBlocker(f)).toBe(because === null);
  });
});

describe('roundLog', () => {
  const run = { id: 'run-1' } as RunRow;
  const rounds: RoundRow[] = [
    { runId: 'run-1', round: 2, head: 'h2', startedAt: 2 },
    { runId: 'run-1', round: 1, head: 'h1', startedAt: 1 },
  ];

  it('orders rounds, counts blockers per round and marks overturned claims in the analyze format', () => {
    const findings = [
      row({ id: 'a', round: 1, reviewer: 'standards', index: 0 }),
      row({ id: 'b', round: 1, reviewer: 'correctness', index: 1, refutation: refuted }),
      row({
        id: 'c',
        round: 1,
        reviewer: 'correctness',
        index: 0,
        severity: 'MINOR',
        reportedSeverity: 'MAJOR',
        gate: demoted,
      }),
      row({ id: 'd', round: 2, reviewer: 'correctness', index: 0, severity: 'MINOR' }),
      row({
        id: 'e',
        round: 2,
        reviewer: 'correctness',
        index: 1,
        refutation: refuted,
        settlement: settle('upheld'),
      }),
      row({ id: 'f', round: 2, reviewer: 'standards', index: 0, settlement: settle('overturned') }),
    ];
    const log = roundLog({ run, rounds, findings });
    expect(log.runId).toBe('run-1');
    // Without recorded decisions nothing says when a settlement came: the round counts what blocks now.
    expect(log.rounds.map((r) => [r.round, r.head, r.blocking])).toEqual([
      [1, 'h1', 1],
      [2, 'h2', 1],
    ]);
    const r1 = log.rounds[0]!.findings;
    // A gate demotion is procedural, not an overturn; a refutation is, and kept apart as `refuted`.
    expect(r1.map((f) => [f.id, f.because, f.overturned, f.refuted, f.demotedBy, f.blocking])).toEqual([
      ['c', 'demoted', false, false, 'no_scenario', false],
      ['b', 'refuted', true, true, null, false],
      ['a', null, false, false, null, true],
    ]);
    // Calibration sees the severity the reviewer claimed, not the gated one.
    expect(r1[0]).toMatchObject({ severity: 'MAJOR', effectiveSeverity: 'MINOR' });
    const r2 = log.rounds[1]!.findings;
    expect(r2.map((f) => [f.id, f.because, f.overturned, f.refuted, f.blockedInRound, f.blocking])).toEqual([
      ['d', 'minor', false, false, false, false],
      ['e', null, false, false, true, true],
      ['f', 'overturned', true, false, false, false],
    ]);
  });

  it("takes each round's count, progress evidence and decision from the recorded decide stage", () => {
    const findings = [
      row({ id: 'a', round: 1, reviewer: 'standards', index: 0 }),
      row({ id: 'f', round: 2, reviewer: 'standards', index: 0, settlement: settle('overturned') }),
    ];
    const decide = (round: number, open: string[], progress: boolean[], decision: RoundDecision) => ({
      runId: 'run-1',
      round,
      stage: 'decide' as const,
      snapshotKey: 'k',
      completedAt: round,
      result: {
        reviewsComplete: true,
        settlements: {},
        progressFacts: null,
        spentUsd: 0,
        blocking: open.length,
        openBlockers: open.map((id) => ({ id, disputed: false, needsSettlement: false })),
        evidence:
          round === 1
            ? null
            : { progress: false, checksNowPassing: [], fixed: [], settled: [], shrank: false },
        progress,
        decision,
      },
    });
    const stages = [
      decide(1, ['a'], [true], { kind: 'fix', blockers: ['a'] }),
      decide(2, ['f'], [true, false], { kind: 'stop', outcome: 'findings', stopReason: 'budget' }),
    ];
    const withPolicy = {
      ...run,
      stopReason: 'budget',
      snapshot: { policy: { stopWindow: 2, shrinkRatio: 0.2 } },
    } as unknown as RunRow;
    const log = roundLog({ run: withPolicy, rounds, findings, stages });
    expect([log.stopReason, log.stopWindow, log.shrinkRatio]).toEqual(['budget', 2, 0.2]);
    expect(log.rounds.map((r) => [r.blocking, r.evidence?.progress, r.decision])).toEqual([
      [1, true, 'fix'],
      [1, false, 'budget'],
    ]);
    // f was overturned by a person after round 2 was decided: it no longer blocks, but it did block round 2.
    expect(log.rounds[1]!.findings[0]).toMatchObject({ id: 'f', blockedInRound: true, blocking: false });
  });

  it('a round with no findings has a blocking count of zero', () => {
    expect(roundLog({ run, rounds, findings: [] }).rounds.map((r) => r.blocking)).toEqual([0, 0]);
  });
});
