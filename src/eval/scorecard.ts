/**
 * The scorecard of one eval: per reviewer and overall metrics with their
 * intervals, the totals (how many cases ran of how many), and, with a second
 * configuration, the paired differences. Pure; every report renders this.
 */

import {
  type BootstrapOptions,
  DEFAULT_BOOTSTRAP,
  type Difference,
  type Interval,
  intervals,
  type MetricName,
  pairedDifference,
} from './bootstrap.js';
import type { CaseResult, RanCase } from './case-result.js';
import {
  addTally,
  caseTally,
  emptyTally,
  type Metrics,
  metricsOf,
  OVERALL,
  reviewerKeys,
  type Tally,
  type Totals,
  totalsOf,
} from './scores.js';
import {
  type SpendDifference,
  type SpendEstimate,
  type SpendMeasure,
  spendDifference,
  spendOf,
} from './spend.js';

export interface ReviewerScore {
  reviewer: string;
  tally: Tally;
  metrics: Metrics;
  intervals: Record<MetricName, Interval | null>;
}

export interface Scorecard {
  label: string;
  mode: string;
  window: number;
  /** How the config was applied to the cases (the report says it). */
  applied: string;
  totals: Totals;
  /** Complete only when every case ran. */
  complete: boolean;
  reviewers: ReviewerScore[];
  /** Dollars and agent calls per case that ran, with intervals. */
  spend: Record<SpendMeasure, SpendEstimate>;
  cases: CaseResult[];
}

export interface Comparison {
  /** Cases that ran under both configurations: the only ones compared. */
  pairedCases: number;
  overall: Record<MetricName, Difference>;
  /** What the other configuration spends more (or less) per case, and the ratio of the totals. */
  spend: Record<SpendMeasure, SpendDifference>;
}

export function scorecard(
  results: CaseResult[],
  meta: { label: string; mode: string; window: number; applied: string },
  o: BootstrapOptions = DEFAULT_BOOTSTRAP,
): Scorecard {
  const ran = results.filter((r): r is RanCase => r.ran);
  const reviewers = reviewerKeys(results).map((reviewer) => {
    const per = ran.map((c) => caseTally(c, reviewer));
    const tally = per.reduce(addTally, emptyTally());
    return { reviewer, tally, metrics: metricsOf(tally), intervals: intervals(per, o) };
  });
  const totals = totalsOf(results);
  const spend = spendOf(ran, o);
  return { ...meta, totals, complete: totals.notRun === 0, reviewers, spend, cases: results };
}

/** b against a, over the cases that ran on both sides, paired by case id. */
export function compare(a: Scorecard, b: Scorecard, o: BootstrapOptions = DEFAULT_BOOTSTRAP): Comparison {
  const bById = new Map(b.cases.filter((c): c is RanCase => c.ran).map((c) => [c.id, c]));
  const pairs = a.cases
    .filter((c): c is RanCase => c.ran)
    .flatMap((c) => {
      const other = bById.get(c.id);
      return other ? [[c, other] as const] : [];
    });
  return {
    pairedCases: pairs.length,
    overall: pairedDifference(
      pairs.map(([x]) => caseTally(x, OVERALL)),
      pairs.map(([, y]) => caseTally(y, OVERALL)),
      o,
    ),
    spend: spendDifference(
      pairs.map(([x]) => x),
      pairs.map(([, y]) => y),
      o,
    ),
  };
}
