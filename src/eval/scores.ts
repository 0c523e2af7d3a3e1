/**
 * Recall, precision, F1 and false-positive rate, per reviewer and overall,
 * from case results. Pure: every number here is a sum over cases, so the
 * bootstrap (bootstrap.ts) resamples per-case tallies instead of re-running.
 */
import type { CaseResult, RanCase } from './case-result.js';

/** One case's counts for one reviewer (or the whole reviewer set). */
export interface Tally {
  defects: number;
  matchedDefects: number;
  findings: number;
  matchedFindings: number;
  clean: number;
  /** Clean cases with at least one blocker. */
  falsePositiveCases: number;
  refuted: number;
}

export interface Metrics {
  recall: number | null;
  precision: number | null;
  f1: number | null;
  falsePositiveRate: number | null;
}

export const OVERALL = '(all reviewers)';

export const emptyTally = (): Tally => ({
  defects: 0,
  matchedDefects: 0,
  findings: 0,
  matchedFindings: 0,
  clean: 0,
  falsePositiveCases: 0,
  refuted: 0,
});

export function addTally(a: Tally, b: Tally): Tally {
  return {
    defects: a.defects + b.defects,
    matchedDefects: a.matchedDefects + b.matchedDefects,
    findings: a.findings + b.findings,
    matchedFindings: a.matchedFindings + b.matchedFindings,
    clean: a.clean + b.clean,
    falsePositiveCases: a.falsePositiveCases + b.falsePositiveCases,
    refuted: a.refuted + b.refuted,
  };
}

const ratio = (n: number, d: number): number | null => (d === 0 ? null : n / d);

export function metricsOf(t: Tally): Metrics {
  const recall = ratio(t.matchedDefects, t.defects);
  const precision = ratio(t.matchedFindings, t.findings);
  const f1 =
    recall === null || precision === null
      ? null
      : recall + precision === 0
        ? 0
        : (2 * recall * precision) / (recall + precision);
  return { recall, precision, f1, falsePositiveRate: ratio(t.falsePositiveCases, t.clean) };
}

/** One case's tally for `reviewer`, or for the whole set when reviewer is OVERALL. */
export function caseTally(c: RanCase, reviewer: string): Tally {
  const mine = c.findings.map((f, i) => ({ f, m: c.matches[i] ?? null }));
  const picked = reviewer === OVERALL ? mine : mine.filter((x) => x.f.reviewer === reviewer);
  // Overall, a defect counts once however many reviewers found it.
  const found = new Set(picked.filter((x) => x.m !== null).map((x) => x.m));
  return {
    defects: c.defects.length,
    matchedDefects: found.size,
    findings: picked.length,
    matchedFindings: picked.filter((x) => x.m !== null).length,
    clean: c.clean ? 1 : 0,
    falsePositiveCases: c.clean && picked.some((x) => x.f.blocking) ? 1 : 0,
    refuted: picked.filter((x) => x.f.refuted).length,
  };
}

export interface Totals {
  cases: number;
  ran: number;
  notRun: number;
  rounds: number;
  costUsd: number;
  calls: number;
  seconds: number;
}

export function totalsOf(results: readonly CaseResult[]): Totals {
  const ran = results.filter((r): r is RanCase => r.ran);
  const sum = (f: (r: RanCase) => number) => ran.reduce((s, r) => s + f(r), 0);
  return {
    cases: results.length,
    ran: ran.length,
    notRun: results.length - ran.length,
    rounds: sum((r) => r.rounds),
    costUsd: sum((r) => r.costUsd),
    calls: sum((r) => r.calls ?? 0),
    seconds: sum((r) => r.seconds),
  };
}

/** Reviewer names in the order the cases list them, then the overall row. */
export function reviewerKeys(results: readonly CaseResult[]): string[] {
  const names: string[] = [];
  for (const r of results) if (r.ran) for (const n of r.reviewers) if (!names.includes(n)) names.push(n);
  return [...names, OVERALL];
}
