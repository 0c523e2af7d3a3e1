/**
 * The one order of a round's stages (DESIGN.md, "The round"): review, refute,
 * decide, then the fix the decision asked for and the checks of the revision
 * it made. The driver walks it, and every store lists a run's stages in it.
 * Round 0 holds only the checks of the admitted revision.
 */
import type { Stage } from './types.js';

export const ROUND_STAGES: readonly Stage[] = ['review', 'refute', 'decide', 'fix', 'checks'];

/** A stage's place in the round, for sorting. */
export const stageRank = (stage: Stage): number => ROUND_STAGES.indexOf(stage);
