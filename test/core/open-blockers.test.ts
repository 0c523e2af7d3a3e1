import { describe, expect, it } from 'vitest';
import { decideRound } from '../../src/core/decide.js';
import type { FindingRow } from '../../src/core/ledger.js';
import { openBlockers } from '../../src/core/open-blockers.js';

const row = (over: Partial<FindingRow> & Pick<FindingRow, 'id' | 'round'>): FindingRow => ({
  runId: 'r',
  reviewer: 'correctness',
  revision: 'h',
  callKey: `k${over.id}`,
  index: 0,
  reported: {
    severity: 'MAJOR',
    file: 'a.ts',
    line: 3,
    claim: 'lost update',
    failureScenario: 'two writers race and one write is lost',
  },
  severity: 'MAJOR',
  gate: { kind: 'kept' },
  refutation: null,
  dispute: null,
  settlement: null,
  ...over,
});
const claim = (f: FindingRow) => `${f.reviewer}:${f.reported.file}:${f.reported.claim}`;
const facts = {
  budgets: { rounds: 5, wallSeconds: 60, costUsd: 1 },
  hasFixer: true,
  reviewsComplete: true,
  stopWindow: 2,
  spentUsd: 0,
};

describe('open blockers (invariants 2 and 8: disputes wait for a person)', () => {
  it('a blocker the fixer disputed stays open, marked disputed, until settled', () => {
    const f1 = row({ id: 'f1', round: 1, dispute: { reason: 'not a bug' } });
    expect(openBlockers([f1], 2, 'revloop', claim)).toEqual([
      { id: 'f1', disputed: true, needsSettlement: false },
    ]);
    const settled = { ...f1, settlement: { by: 'ann', decision: 'overturned' as const, note: null, at: 1 } };
    expect(openBlockers([settled], 2, 'revloop', claim)).toEqual([]);
  });

  it('the same claim raised again after a dispute waits for the person instead of going back to the fixer', () => {
    const f1 = row({ id: 'f1', round: 1, dispute: { reason: 'not a bug' } });
    const f2 = row({ id: 'f2', round: 2 });
    const open = openBlockers([f1, f2], 2, 'revloop', claim);
    expect(open).toEqual([{ id: 'f2', disputed: true, needsSettlement: false }]);
    expect(decideRound({ ...facts, round: 2, openBlockers: open, progress: [true, false] })).toEqual({
      kind: 'stop',
      outcome: 'findings',
      stopReason: 'awaiting_settlement',
    });
  });

  it("a different claim in the next round is the fixer's again", () => {
    const f1 = row({ id: 'f1', round: 1, dispute: { reason: 'not a bug' } });
    const f2 = row({ id: 'f2', round: 2, reported: { ...f1.reported, claim: 'unbounded retry' } });
    expect(openBlockers([f1, f2], 2, 'revloop', claim)).toEqual([
      { id: 'f2', disputed: false, needsSettlement: false },
      { id: 'f1', disputed: true, needsSettlement: false },
    ]);
  });

  it("the controller's protected-path finding needs a person in the round whose revision it checked, until overturned", () => {
    const p1 = row({ id: 'p1', round: 1, reviewer: 'revloop' });
    const p3 = row({ id: 'p3', round: 3, reviewer: 'revloop' });
    expect(openBlockers([p1, p3], 3, 'revloop', claim)).toEqual([
      { id: 'p3', disputed: false, needsSettlement: true },
    ]);
    // Each round checks its own revision: a fix that reverted the edit leaves nothing to settle.
    expect(openBlockers([p1], 3, 'revloop', claim)).toEqual([]);
    const overturned = {
      ...p3,
      settlement: { by: 'ann', decision: 'overturned' as const, note: null, at: 1 },
    };
    expect(openBlockers([p1, overturned], 3, 'revloop', claim)).toEqual([]);
  });

  it('a protected-path blocker a person upheld is decided: the run stops upheld, not awaiting_settlement', () => {
    const p = row({
      id: 'p',
      round: 1,
      reviewer: 'revloop',
      settlement: { by: 'ann', decision: 'upheld', note: 'not this edit', at: 1 },
    });
    const open = openBlockers([p], 1, 'revloop', claim);
    expect(open).toEqual([{ id: 'p', disputed: false, needsSettlement: false, upheld: true }]);
    const stop = { kind: 'stop', outcome: 'findings', stopReason: 'upheld' };
    expect(decideRound({ ...facts, round: 1, openBlockers: open, progress: [true] })).toEqual(stop);
    // Never handed to the fixer beside a fixable blocker.
    const other = row({ id: 'f', round: 1 });
    expect(
      decideRound({
        ...facts,
        round: 1,
        openBlockers: openBlockers([p, other], 1, 'revloop', claim),
        progress: [true],
      }),
    ).toEqual({ kind: 'fix', blockers: ['f'] });
  });
});
