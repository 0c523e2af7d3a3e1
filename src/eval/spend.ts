/**
 * What a configuration costs per case: dollars and agent calls, each as a
 * mean with a bootstrap interval, and for two configurations the paired
 * difference and ratio. A feature that lowers false positives by drawing
 * more samples, or saves calls by reusing verdicts, shows its price here
 * beside its effect on the metrics (bootstrap.ts resamples the same way).
 */
import { mulberry32 } from '../sim/prng.js';
import { type BootstrapOptions, type Interval, quantile } from './bootstrap.js';
import type { RanCase } from './case-result.js';

export const SPEND_MEASURES = ['costUsd', 'calls'] as const;
export type SpendMeasure = (typeof SPEND_MEASURES)[number];

export interface SpendEstimate {
  /** Mean per case that ran. */
  mean: number;
  interval: Interval | null;
}

export interface SpendDifference {
  /** b − a per case, on the paired cases. */
  delta: number;
  interval: Interval | null;
  /** b ÷ a of the totals (null when a spent nothing). */
  ratio: number | null;
  ratioInterval: Interval | null;
}

function percentile(values: number[], level: number): Interval | null {
  if (values.length === 0) return null;
  const s = values.sort((x, y) => x - y);
  const alpha = (1 - level) / 2;
  return { low: quantile(s, alpha), high: quantile(s, 1 - alpha) };
}

/** Resampled index vectors; the seed is the metrics' own, so a report's numbers all come from one stream. */
function* resamples(n: number, o: BootstrapOptions): Generator<number[]> {
  const u = mulberry32(o.seed);
  for (let r = 0; r < o.resamples; r++) yield Array.from({ length: n }, () => Math.floor(u() * n));
}

const sum = (xs: readonly number[], idx: readonly number[]): number =>
  idx.reduce((s, i) => s + (xs[i] as number), 0);

export function spendOf(
  cases: readonly Pick<RanCase, SpendMeasure>[],
  o: BootstrapOptions,
): Record<SpendMeasure, SpendEstimate> {
  const out = {} as Record<SpendMeasure, SpendEstimate>;
  for (const m of SPEND_MEASURES) {
    const xs = cases.map((c) => c[m]);
    const n = xs.length;
    const means: number[] = [];
    if (n > 0) for (const idx of resamples(n, o)) means.push(sum(xs, idx) / n);
    out[m] = { mean: n === 0 ? 0 : xs.reduce((s, x) => s + x, 0) / n, interval: percentile(means, o.level) };
  }
  return out;
}

/** b against a on paired cases (a[i] and b[i] are the same case). */
export function spendDifference(
  a: readonly Pick<RanCase, SpendMeasure>[],
  b: readonly Pick<RanCase, SpendMeasure>[],
  o: BootstrapOptions,
): Record<SpendMeasure, SpendDifference> {
  if (a.length !== b.length) throw new Error('paired spend needs the same cases on both sides');
  const out = {} as Record<SpendMeasure, SpendDifference>;
  const n = a.length;
  const all = a.map((_, i) => i);
  for (const m of SPEND_MEASURES) {
    const xa = a.map((c) => c[m]);
    const xb = b.map((c) => c[m]);
    const deltas: number[] = [];
    const ratios: number[] = [];
    if (n > 0)
      for (const idx of resamples(n, o)) {
        const sa = sum(xa, idx);
        const sb = sum(xb, idx);
        deltas.push((sb - sa) / n);
        if (sa > 0) ratios.push(sb / sa);
      }
    const ta = sum(xa, all);
    const tb = sum(xb, all);
    out[m] = {
      delta: n === 0 ? 0 : (tb - ta) / n,
      interval: percentile(deltas, o.level),
      ratio: ta > 0 ? tb / ta : null,
      ratioInterval: ta > 0 ? percentile(ratios, o.level) : null,
    };
  }
  return out;
}
