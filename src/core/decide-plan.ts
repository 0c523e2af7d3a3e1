/**
 * The decide planner: from the recorded facts of a round (its findings as
 * they stand, with refutations, disputes and settlements; the progress facts
 * git and the checks gave; the spend), the open blockers, the progress
 * evidence (invariant 8) and the round decision. The live decide stage and
 * replay both call it.
 */
import { decideRound, type OpenBlocker, type RoundDecision } from './decide.js';
import type { FindingRow } from './ledger.js';
import { openBlockers } from './open-blockers.js';
import { evaluateProgress, type ProgressEvidence, type ProgressFacts, raisedIn } from './progress.js';
import { CONTROLLER_REVIEWER } from './run-report.js';
import type { Budgets } from './types.js';

export interface DecideFacts {
  round: number;
  /** Every finding of the run as it stands when deciding. */
  findings: FindingRow[];
  /** A finding's claim (reviewer, file, claim text): a re-raise of a disputed claim waits with it. */
  sameClaim: (f: FindingRow) => string;
  /** Evidence gathered for rounds after the first; null in round 1 (the baseline). */
  progressFacts: ProgressFacts | null;
  /** Progress of rounds 1..round-1, as the previous decision recorded it. */
  progressBefore: readonly boolean[];
  budgets: Budgets;
  hasFixer: boolean;
  reviewsComplete: boolean;
  /** Coverage; undefined for rounds recorded before coverage existed. */
  coverageComplete: boolean | undefined;
  stopWindow: number;
  spentUsd: number;
}

export interface DecidePlan {
  openBlockers: OpenBlocker[];
  evidence: ProgressEvidence | null;
  progress: boolean[];
  decision: RoundDecision;
}

export function planDecision(f: DecideFacts): DecidePlan {
  const open = openBlockers(f.findings, f.round, CONTROLLER_REVIEWER, f.sameClaim);
  // What the round raised is read from the findings themselves, so a re-raise is judged on what was recorded.
  const evidence = f.progressFacts
    ? evaluateProgress({ ...f.progressFacts, raised: raisedIn(f.findings, f.round, CONTROLLER_REVIEWER) })
    : null;
  const progress = [...f.progressBefore, evidence ? evidence.progress : true];
  const decision = decideRound({
    round: f.round,
    budgets: f.budgets,
    hasFixer: f.hasFixer,
    reviewsComplete: f.reviewsComplete,
    coverageComplete: f.coverageComplete,
    openBlockers: open,
    progress,
    stopWindow: f.stopWindow,
    spentUsd: f.spentUsd,
  });
  return { openBlockers: open, evidence, progress, decision };
}
