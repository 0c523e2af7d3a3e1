/**
 * One trial of the review-loop model: rounds of review, gate (U1, U3),
 * refute (U2), decide and rework until the loop converges, the stop rule
 * fires or the horizon runs out. The decision is core's `decideRound` on
 * progress evidence built as the live loop builds it (docs/sim.md).
 */

import { countRuleStep } from '../analyze/stop-rule.js';
import { decideRound, type OpenBlocker, type RoundDecision } from '../core/decide.js';
import { evaluateProgress, type ProgressEvidence, type ProgressFacts } from '../core/progress.js';
import { roundStep, WALK_START, type WalkFacts, type WalkPlan } from '../core/round-step.js';
import type { SimParams, Upgrade } from './params.js';
import { type SimLogFinding, type TrialOutcome, TrialState } from './trial-state.js';

export type { SimLogFinding, TrialOutcome, TrialStop } from './trial-state.js';
export { TrialState } from './trial-state.js';

/** What one round's decision was taken on: the facts core's functions read, and what they said. */
export interface RoundRecord {
  round: number;
  blocking: number;
  /** The evidence facts (evidence rule, round 2 on), else null. */
  facts: ProgressFacts | null;
  /** What core's evaluateProgress made of them, else null. */
  evidence: ProgressEvidence | null;
  /** The round's findings as a round log carries them (built on demand). */
  findings: () => SimLogFinding[];
  progress: boolean[];
  decision: RoundDecision;
}

/** One side of the comparison: which upgrades it runs. */
export interface SideSpec {
  upgrades: readonly Upgrade[];
  /** Also report the trial as a round cap at this round would have stopped it (the capped baseline). */
  capAt?: number | null;
  /** Called after each round's decision with the facts it was taken on (tests). */
  onRound?: (r: RoundRecord) => void;
  /** Called with each step of the walk the trial takes (tests: the one round order). */
  onStep?: (plan: WalkPlan) => void;
}

export interface TrialRun {
  outcome: TrialOutcome;
  /** The outcome under a round cap of `side.capAt`, or null when none was asked. */
  capped: TrialOutcome | null;
}

const UNBOUNDED = { rounds: Number.MAX_SAFE_INTEGER, wallSeconds: 0, costUsd: 0 };
const OPEN: OpenBlocker = Object.freeze({ id: 'b', disputed: false, needsSettlement: false });
// decideRound only reads its open blockers, so lists of n identical blockers are shared.
const OPEN_LISTS: OpenBlocker[][] = [];
const openList = (n: number): OpenBlocker[] => (OPEN_LISTS[n] ??= new Array<OpenBlocker>(n).fill(OPEN));

/**
 * Runs trial number `trial` of `p` for one side. Same inputs, same outcome.
 * `state` may be passed to reuse one side's state object across its trials.
 */
export function runTrial(p: SimParams, side: SideSpec, trial: number, state?: TrialState): TrialRun {
  const rule = side.upgrades.includes('U4') ? p.stopRule : null;
  const s = (state ?? new TrialState(p, side.upgrades)).reset(trial);
  const progress: boolean[] = [];
  let outcome: TrialOutcome | null = null;
  let capped: TrialOutcome | null = null;
  let ruleOn = rule !== null;

  // The one walk of a round (core/round-step.ts): review (the sim's review gates and refutes
  // too), decide, then rework; a stop other than clear is recorded and the trial played on.
  let decision: RoundDecision | undefined;
  let decided = 0;
  const walkFacts: WalkFacts = {
    hasChecks: false,
    recorded: () => false,
    decision: (round) => (round === decided ? decision : undefined),
  };
  let at = WALK_START;
  walk: for (;;) {
    const step = roundStep(at, walkFacts);
    at = step.at;
    const plan = step.plan;
    side.onStep?.(plan);
    if (plan.kind === 'begin') continue;
    const round = plan.round;
    if (plan.kind === 'stop') {
      if (plan.decision.stopReason === 'clear') {
        s.fixMinorsAtStop(round);
        if (outcome === null) outcome = s.outcome('converged');
        else outcome.falseEscalation = true; // the stop rule ended a trial that was about to converge
        if (capped === null && side.capAt != null) capped = s.outcome('converged');
        break;
      }
      if (outcome === null) {
        // no_progress: record the escalation, then play the trial on to see whether it would have converged.
        outcome = s.outcome('escalated');
        ruleOn = false;
      }
      continue;
    }
    switch (plan.stage) {
      case 'review':
        s.review(round);
        break;
      case 'decide': {
        const blockers = s.blockerCount;
        let facts: ProgressFacts | null = null;
        let evidence: ProgressEvidence | null = null;
        if (round === 1) progress.push(true);
        else if (ruleOn && rule === 'evidence') {
          facts = s.progressFacts();
          evidence = evaluateProgress(facts);
          progress.push(evidence.progress);
        } else if (ruleOn && rule === 'count') progress.push(countRuleStep(s.blocking[round - 2]!, blockers));
        else progress.push(true);
        decision = decideRound({
          round,
          budgets: UNBOUNDED,
          hasFixer: true,
          reviewsComplete: true,
          // The sim prices no calls: cost is outside the model.
          spentUsd: 0,
          openBlockers: openList(blockers),
          progress,
          stopWindow: p.stopWindow,
        });
        decided = round;
        side.onRound?.({
          round,
          blocking: blockers,
          facts,
          evidence,
          findings: () => s.findings(),
          progress: [...progress],
          decision,
        });
        break;
      }
      case 'fix':
        if (capped === null && side.capAt != null && round === side.capAt) capped = s.outcome('capped');
        if (round === p.maxRounds) break walk;
        s.rework(round);
        break;
      // The sim's review refutes as it gates, and it has no checks.
      default:
        break;
    }
  }
  return {
    outcome: outcome ?? s.outcome('running'),
    capped: side.capAt != null ? (capped ?? s.outcome('running')) : null,
  };
}
