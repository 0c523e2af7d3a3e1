/**
 * The walk of a run, one step at a time: the single owner of what comes next
 * in a round (DESIGN.md, "The round"). The driver, replay, the property-test
 * harness and the simulator all fold over `roundStep`; none of them writes
 * the order down again.
 *
 * A run begins with round 0, the baseline of the checks (only when the run
 * has checks). Each round r then begins (a round not yet decided is begun
 * again within the budgets), runs review, refute and decide, stops when the
 * decision says stop, and otherwise runs the fix the decision asked for and
 * the checks of the revision it made. A stage the facts say is recorded is
 * skipped, so a resumed run walks on from where the ledger stands.
 */
import type { RoundDecision } from './decide.js';
import { ROUND_STAGES } from './round-order.js';
import type { Stage } from './types.js';

/** One round's steps: its beginning, its stages in order, and the decision's verdict right after `decide`. */
type Step = 'begin' | 'verdict' | Stage;
const STEPS: readonly Step[] = [
  'begin',
  ...ROUND_STAGES.flatMap((s): Step[] => (s === 'decide' ? [s, 'verdict'] : [s])),
];

/** Where a walk stands: the round, and the index of its next step. */
export interface WalkAt {
  readonly round: number;
  readonly step: number;
}

/** Before round 0's baseline checks. */
export const WALK_START: WalkAt = { round: 0, step: STEPS.indexOf('checks') };

/** What the walk reads of the run: from the ledger (driver, replay) or a model of it (property tests, simulator). */
export interface WalkFacts {
  /** Whether the run has checks: without them round 0 and each round's checks stage do not exist. */
  readonly hasChecks: boolean;
  /** Whether `stage` of `round` is recorded already: a recorded stage is not run again. */
  recorded(round: number, stage: Stage): boolean;
  /** The decision recorded for `round`, once it is decided. */
  decision(round: number): RoundDecision | undefined;
}

export type WalkPlan =
  /** Round `round` is not decided yet: it is begun (again, after a crash) within the budgets. */
  | { readonly kind: 'begin'; readonly round: number }
  /** Run `stage` of `round` (it is not recorded). */
  | { readonly kind: 'stage'; readonly round: number; readonly stage: Stage }
  /**
   * The decision of `round` stops the run. A walker that plays on past it (the
   * simulator, to see whether a stopped trial would have converged) calls
   * again from the position returned with it, which is the round's fix.
   */
  | {
      readonly kind: 'stop';
      readonly round: number;
      readonly decision: Extract<RoundDecision, { kind: 'stop' }>;
    };

/**
 * The next thing to do from `at`, and the position after it. Pure: the same
 * position and facts give the same plan. A caller runs the planned stage (or
 * begins the round) and calls again with the returned position.
 */
export function roundStep(at: WalkAt, facts: WalkFacts): { at: WalkAt; plan: WalkPlan } {
  let { round, step } = at;
  for (;;) {
    if (step >= STEPS.length || (round === 0 && step !== STEPS.indexOf('checks'))) {
      round++;
      step = 0;
    }
    const here = STEPS[step] as Step;
    const next = { round, step: step + 1 };
    if (here === 'begin') {
      if (facts.decision(round) === undefined) return { at: next, plan: { kind: 'begin', round } };
    } else if (here === 'verdict') {
      const decision = facts.decision(round);
      if (decision?.kind === 'stop') return { at: next, plan: { kind: 'stop', round, decision } };
    } else if (!(here === 'checks' && !facts.hasChecks) && !facts.recorded(round, here)) {
      return { at: next, plan: { kind: 'stage', round, stage: here } };
    }
    step++;
  }
}
