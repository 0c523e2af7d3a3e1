/**
 * The round decision: after a round's review and refutation, stop (with an
 * outcome and a reason) or spend a fix round. A pure function of recorded
 * facts, so `replay` can recompute it.
 */
import { costSpent, overCostBudget } from './budget.js';
import type { Budgets, Outcome, StopReason } from './types.js';

export interface OpenBlocker {
  id: string;
  /** The fixer disputed it: it waits for a named person. */
  disputed: boolean;
  /** A change to a protected path (config, criteria, a file the config names): only a person can clear it. */
  needsSettlement: boolean;
  /**
   * A protected-path blocker a named person upheld: decided, so nothing waits
   * for a person, and never the fixer's to touch. Present only when true.
   */
  upheld?: true;
}

export interface RoundFacts {
  round: number;
  budgets: Budgets;
  hasFixer: boolean;
  /** Every configured reviewer has a valid verdict on this round's revision (invariant 1). */
  reviewsComplete: boolean;
  /**
   * Every file not ignored was reviewed by every reviewer (core/coverage.ts).
   * Absent for rounds recorded before coverage existed (one call saw the whole diff).
   */
  coverageComplete?: boolean;
  openBlockers: OpenBlocker[];
  /** Progress of rounds 1..round; round 1 is the baseline and counts as progress. */
  progress: boolean[];
  stopWindow: number;
  /** Spend recorded on the run so far (every verdict up to this decision). */
  spentUsd: number;
}

export type RoundDecision =
  | { kind: 'stop'; outcome: Outcome; stopReason: StopReason }
  | { kind: 'fix'; blockers: string[] };

export class IncompleteReviewError extends Error {
  constructor(
    readonly round: number,
    readonly missing: 'verdicts' | 'coverage' = 'verdicts',
  ) {
    super(
      missing === 'coverage'
        ? `round ${round}: a decision was asked for before every reviewer saw every file not ignored (invariant 1)`
        : `round ${round}: a decision was asked for before every reviewer completed (invariant 1)`,
    );
  }
}

/** Invariant 8: the stop rule fires when the last `window` rounds all lacked progress. */
export function stopRuleFires(progress: boolean[], window: number): boolean {
  // progress[0] is round 1, always true: the rule cannot fire before `window` rounds after it.
  return progress.length >= window && progress.slice(-window).every((p) => !p);
}

export function decideRound(f: RoundFacts): RoundDecision {
  // Invariant 1: a missing result is never clear.
  if (!f.reviewsComplete) throw new IncompleteReviewError(f.round);
  // A file no reviewer was shown is a missing result too: never clear, never "findings" either.
  if (f.coverageComplete === false) throw new IncompleteReviewError(f.round, 'coverage');
  // Invariant 12: over the budget after a complete review, whatever the order of the calls
  // that spent it: findings / budget, never clear.
  if (overCostBudget(f.spentUsd, f.budgets))
    return { kind: 'stop', outcome: 'findings', stopReason: 'budget' };
  if (f.openBlockers.length === 0) return { kind: 'stop', outcome: 'clear', stopReason: 'clear' };
  if (!f.hasFixer) return { kind: 'stop', outcome: 'findings', stopReason: 'review_only' };
  if (stopRuleFires(f.progress, f.stopWindow))
    return { kind: 'stop', outcome: 'findings', stopReason: 'no_progress' };
  // Invariant 12: rounds (or money for another round) exhausted after a complete review.
  if (f.round >= f.budgets.rounds || costSpent(f.spentUsd, f.budgets))
    return { kind: 'stop', outcome: 'findings', stopReason: 'budget' };
  const fixable = f.openBlockers
    .filter((b) => !b.disputed && !b.needsSettlement && !b.upheld)
    .map((b) => b.id);
  if (fixable.length > 0) return { kind: 'fix', blockers: fixable };
  // Only blockers a person upheld on protected paths remain: nobody is waited for, the author must act.
  if (f.openBlockers.every((b) => b.upheld))
    return { kind: 'stop', outcome: 'findings', stopReason: 'upheld' };
  return { kind: 'stop', outcome: 'findings', stopReason: 'awaiting_settlement' };
}
