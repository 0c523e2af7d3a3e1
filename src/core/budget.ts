/**
 * Invariant 12's money: what a run has spent, and when it may spend no more.
 * Pure, so the live decision and replay count the same cents.
 */
import type { Budgets } from './types.js';

/**
 * The recorded spend of a set of verdicts, summed in micro-dollars: integer
 * addition does not depend on the order the verdicts are read in, so a live
 * run and its replay compare the same total against the budget.
 */
export const spendOf = (costsUsd: Iterable<number>): number => {
  let micro = 0;
  for (const c of costsUsd) micro += Math.round(c * 1e6);
  return micro / 1e6;
};

/** No call may start once the recorded spend reached the frozen cost budget (0 = no budget). */
export const costSpent = (spentUsd: number, budgets: Budgets): boolean =>
  budgets.costUsd > 0 && spentUsd >= budgets.costUsd;

/** A run whose recorded spend exceeds its frozen cost budget never ends clear. */
export const overCostBudget = (spentUsd: number, budgets: Budgets): boolean =>
  budgets.costUsd > 0 && spentUsd > budgets.costUsd;
