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

  it("the controller's protected-path finding needs a person, in every round, until overturned", () => {
    const p = row({ id: 'p', round: 1, reviewer: 'revloop' });
    expect(openBlockers([p], 3, 'revloop', claim)).toEqual([
      { id: 'p', disputed: false, needsSettlement: true },
    ]);
  });
});
