/**
 * The stop rules Loop Lab applies, both through core's `stopRuleFires` (the
 * function the live loop's decision calls), so the simulator, the analyzer
 * and the loop cannot disagree on the same progress.
 */
import { stopRuleFires } from '../core/decide.js';

/**
 * The seed's rate rule read as progress: round k made progress unless it has
 * at least as many blockers as round k-1 while round k-1 had some. Round 1 is
 * the baseline and counts as progress, as in the loop.
 */
export function countRuleProgress(blocking: readonly number[]): boolean[] {
  return blocking.map((b, k) => k === 0 || countRuleStep(blocking[k - 1]!, b));
}

/** One round of the rate rule: progress unless `cur` fails to fall below a non-zero `prev`. */
export const countRuleStep = (prev: number, cur: number): boolean => !(prev > 0 && cur >= prev);

/**
 * The first round (1-based) at which the live decision stops for no progress,
 * or null: a round with open blockers whose last `window` rounds made no
 * progress (a round with none is clear first, as in `decideRound`). Each
 * round looks at a window-sized tail only, so a long log is linear.
 */
export function liveStopAt(
  blocking: readonly number[],
  progress: readonly boolean[],
  window: number,
): number | null {
  for (let k = 0; k < progress.length; k++) {
    if ((blocking[k] ?? 0) === 0) continue;
    if (stopRuleFires(progress.slice(Math.max(0, k + 1 - window), k + 1), window)) return k + 1;
  }
  return null;
}
