/**
 * Case-resampling bootstrap: intervals for every metric, and a paired test
 * for the difference between two configurations run on the same cases.
 * Pure and seeded: the same seed gives the same intervals, byte for byte.
 */
import { mulberry32 } from '../sim/prng.js';
import { addTally, emptyTally, type Metrics, metricsOf, type Tally } from './scores.js';

export type MetricName = keyof Metrics;
export const METRICS: readonly MetricName[] = ['recall', 'precision', 'f1', 'falsePositiveRate'];

export interface Interval {
  low: number;
  high: number;
}

export interface BootstrapOptions {
  seed: number;
  resamples: number;
  /** Two-sided level, e.g. 0.95. */
  level: number;
}

export const DEFAULT_BOOTSTRAP: BootstrapOptions = { seed: 1, resamples: 1000, level: 0.95 };

export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  const a = sorted[lo] as number;
  const b = sorted[hi] as number;
  return a + (b - a) * (pos - lo);
}

/** Draws `resamples` index vectors over n cases; shared by both sides of a paired test. */
function draws(n: number, o: BootstrapOptions): number[][] {
  const u = mulberry32(o.seed);
  return Array.from({ length: o.resamples }, () => Array.from({ length: n }, () => Math.floor(u() * n)));
}

const sumAt = (tallies: readonly Tally[], idx: readonly number[]): Tally =>
  idx.reduce((acc, i) => addTally(acc, tallies[i] as Tally), emptyTally());

/** Percentile intervals of every metric over per-case tallies (null where a metric is undefined). */
export function intervals(
  tallies: readonly Tally[],
  o: BootstrapOptions = DEFAULT_BOOTSTRAP,
): Record<MetricName, Interval | null> {
  const samples: Record<MetricName, number[]> = { recall: [], precision: [], f1: [], falsePositiveRate: [] };
  if (tallies.length > 0)
    for (const idx of draws(tallies.length, o)) {
      const m = metricsOf(sumAt(tallies, idx));
      for (const k of METRICS) {
        const v = m[k];
        if (v !== null) samples[k].push(v);
      }
    }
  const alpha = (1 - o.level) / 2;
  const out = {} as Record<MetricName, Interval | null>;
  for (const k of METRICS) {
    const s = samples[k].sort((a, b) => a - b);
    out[k] = s.length === 0 ? null : { low: quantile(s, alpha), high: quantile(s, 1 - alpha) };
  }
  return out;
}

export interface Difference {
  /** b − a on the full set of cases (null when undefined on either side). */
  delta: number | null;
  interval: Interval | null;
  /** Two-sided bootstrap p-value of "no difference". */
  p: number | null;
  significant: boolean;
}

/**
 * Paired bootstrap: the same resampled cases on both sides (a[i] and b[i] are
 * the same case), so the case-to-case spread cancels out of the difference.
 */
export function pairedDifference(
  a: readonly Tally[],
  b: readonly Tally[],
  o: BootstrapOptions = DEFAULT_BOOTSTRAP,
): Record<MetricName, Difference> {
  if (a.length !== b.length) throw new Error('paired tallies need the same cases on both sides');
  const all = a.map((_, i) => i);
  const full = { a: metricsOf(sumAt(a, all)), b: metricsOf(sumAt(b, all)) };
  const diffs: Record<MetricName, number[]> = { recall: [], precision: [], f1: [], falsePositiveRate: [] };
  if (a.length > 0)
    for (const idx of draws(a.length, o)) {
      const ma = metricsOf(sumAt(a, idx));
      const mb = metricsOf(sumAt(b, idx));
      for (const k of METRICS) {
        const va = ma[k];
        const vb = mb[k];
        if (va !== null && vb !== null) diffs[k].push(vb - va);
      }
    }
  const alpha = (1 - o.level) / 2;
  const out = {} as Record<MetricName, Difference>;
  for (const k of METRICS) {
    const va = full.a[k];
    const vb = full.b[k];
    const s = diffs[k].sort((x, y) => x - y);
    if (va === null || vb === null || s.length === 0) {
      out[k] = { delta: null, interval: null, p: null, significant: false };
      continue;
    }
    const below = s.filter((d) => d <= 0).length / s.length;
    const above = s.filter((d) => d >= 0).length / s.length;
    const p = Math.min(1, 2 * Math.min(below, above));
    const interval = { low: quantile(s, alpha), high: quantile(s, 1 - alpha) };
    out[k] = { delta: vb - va, interval, p, significant: interval.low > 0 || interval.high < 0 };
  }
  return out;
}
