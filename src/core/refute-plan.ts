/**
 * The refute planner (invariant 10): which of a round's findings go to the
 * refuter, and what each of its decisions records. The live refute stage and
 * replay both call it.
 */
import { costSpent } from './budget.js';
import type { Hash } from './canonical-json.js';
import type { FindingRow, Refutation } from './ledger.js';
import {
  answerFromMemory,
  type MemoryFact,
  type MemoryJudge,
  type RememberedRefutation,
} from './refute-memory.js';
import { CONTROLLER_REVIEWER, isBlocker } from './run-report.js';
import type { Budgets, RefuterReply } from './types.js';

/** The round's reviewer blockers: the controller's own protected-path findings are a person's to judge. */
export const refutable = (findings: readonly FindingRow[], round: number): FindingRow[] =>
  findings.filter((f) => f.round === round && f.reviewer !== CONTROLLER_REVIEWER && isBlocker(f));

/** The remembered refuter decisions a round weighs (core/refute-memory.ts). */
export interface RefuteMemory {
  facts: readonly MemoryFact[];
  judge: MemoryJudge;
  hash: Hash;
}

/**
 * The findings the refuter is asked about: none without a refuter. A blocker
 * a remembered refutation covers is answered from memory (`remembered`): it
 * costs nothing, so neither the budget nor the cap below holds it back. Of the
 * rest, none once the cost budget is spent after a complete review (invariant
 * 12: no refuter is paid for; the decision then ends the run findings /
 * budget), and of one reply's blockers only the first `maxPerReply` (in
 * recorded order) are sent: a reply of hundreds of blockers would otherwise
 * cost a refuter call each. Those (`overCap`) are never refuted, so they
 * stand as blockers.
 */
export function refutationTargets(
  findings: readonly FindingRow[],
  round: number,
  facts: {
    hasRefuter: boolean;
    spentUsd: number;
    budgets: Budgets;
    maxPerReply?: number | undefined;
    memory?: RefuteMemory | undefined;
  },
): {
  targets: FindingRow[];
  overCap: string[];
  remembered: { findingId: string; refutation: RememberedRefutation }[];
} {
  const refutableNow = refutable(findings, round);
  if (!facts.hasRefuter || refutableNow.length === 0) return { targets: [], overCap: [], remembered: [] };
  const m = facts.memory;
  const { remembered, rest: blockers } = m
    ? answerFromMemory(refutableNow, m.facts, m.judge, m.hash)
    : { remembered: [], rest: refutableNow };
  if (blockers.length === 0 || costSpent(facts.spentUsd, facts.budgets))
    return { targets: [], overCap: [], remembered };
  const max = facts.maxPerReply ?? Number.POSITIVE_INFINITY;
  const sentOf = new Map<string, number>();
  const targets: FindingRow[] = [];
  const overCap: string[] = [];
  for (const f of blockers) {
    const sent = sentOf.get(f.callKey) ?? 0;
    if (sent >= max) overCap.push(f.id);
    else {
      sentOf.set(f.callKey, sent + 1);
      targets.push(f);
    }
  }
  return { targets, overCap, remembered };
}

/** What one refuter verdict records on its finding: refuted findings stop blocking (run-report.ts). */
export function refutationOf(
  reply: RefuterReply,
  call: { callKey: string; refuter: string; modelId: string | null },
): Refutation {
  const by = call.modelId ? `${call.refuter} (${call.modelId})` : call.refuter;
  return { decision: reply.decision, by, reason: reply.reason, callKey: call.callKey };
}
