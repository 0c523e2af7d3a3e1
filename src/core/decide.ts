/**
 * The round decision: after a round's review and refutation, stop (with an
 * outcome and a reason) or spend a fix round. A pure function of recorded
 * facts, so `replay` can recompute it.
 */
import type { Budgets, Outcome, StopReason } from './types.js';

export interface OpenBlocker {
  id: string;
  /** The fixer disputed it: it waits for a named person. */
  disputed: boolean;
  /** A change to a protected path (config, criteria, a file the config names): only a person can clear it. */
  needsSettlement: boolean;
}

export interface RoundFacts {
  round: number;
  budgets: Budgets;
  hasFixer: boolean;
  /** Every configured reviewer has a valid verdict on this round's revision (invariant 1). */
  reviewsComplete: boolean;
  openBlockers: OpenBlocker[];
  /** Progress of rounds 1..round; round 1 is the baseline and counts as progress. */
  progress: boolean[];
  stopWindow: number;
}

export type RoundDecision =
  | { kind: 'stop'; outcome: Outcome; stopReason: StopReason }
  | { kind: 'fix'; blockers: string[] };

export class IncompleteReviewError extends Error {
  constructor(readonly round: number) {
    super(`round ${round}: a decision was asked for before every reviewer completed (invariant 1)`);
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
  if (f.openBlockers.length === 0) return { kind: 'stop', outcome: 'clear', stopReason: 'clear' };
  if (!f.hasFixer) return { kind: 'stop', outcome: 'findings', stopReason: 'review_only' };
  if (stopRuleFires(f.progress, f.stopWindow))
    return { kind: 'stop', outcome: 'findings', stopReason: 'no_progress' };
  // Invariant 12: rounds exhausted after a complete review.
  if (f.round >= f.budgets.rounds) return { kind: 'stop', outcome: 'findings', stopReason: 'budget' };
  const fixable = f.openBlockers.filter((b) => !b.disputed && !b.needsSettlement).map((b) => b.id);
  if (fixable.length === 0) return { kind: 'stop', outcome: 'findings', stopReason: 'awaiting_settlement' };
  return { kind: 'fix', blockers: fixable };
}
