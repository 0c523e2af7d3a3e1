/**
 * Intervals and tails for the simulator's summaries: Wilson score intervals
 * for rates, seeded percentile-bootstrap intervals for means, quantiles.
 * Pure and seeded, so the same run prints the same intervals.
 */
import { Mulberry32 } from './prng.js';

/** The normal quantile of a two-sided 95 % interval. */
const Z95 = 1.959963984540054;

/** Wilson score interval of `k` successes in `n` trials, as fractions in [0, 1]. */
export function wilson(k: number, n: number, z = Z95): [number, number] {
  if (n === 0) return [0, 1];
  const phat = k / n;
  const z2 = z * z;
  const denom = 1 + z2 / n;
  const centre = (phat + z2 / (2 * n)) / denom;
  const half = (z * Math.sqrt((phat * (1 - phat)) / n + z2 / (4 * n * n))) / denom;
  return [Math.max(0, centre - half), Math.min(1, centre + half)];
}

/** The q-quantile (0..1) of sorted values, nearest rank (always one of the values). */
export function quantileSorted(sorted: ArrayLike<number>, q: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank]!;
}

/** Resamples per bootstrap: enough for a 95 % percentile interval at the precision we print. */
export const BOOTSTRAP_RESAMPLES = 200;

/**
 * Percentile-bootstrap 95 % intervals of the means of three columns, all
 * resampled with the same indices (one pass), from a seeded generator.
 */
export function bootstrapMeans(
  a: Float64Array,
  b: Float64Array,
  c: Float64Array,
  seed: number,
): [[number, number], [number, number], [number, number]] {
  const n = a.length;
  if (n === 0)
    return [
      [0, 0],
      [0, 0],
      [0, 0],
    ];
  const rng = new Mulberry32(seed);
  const ma = new Float64Array(BOOTSTRAP_RESAMPLES);
  const mb = new Float64Array(BOOTSTRAP_RESAMPLES);
  const mc = new Float64Array(BOOTSTRAP_RESAMPLES);
  for (let r = 0; r < BOOTSTRAP_RESAMPLES; r++) {
    let sa = 0;
    let sb = 0;
    let sc = 0;
    for (let k = 0; k < n; k++) {
      const j = (rng.next() * n) | 0;
      sa += a[j]!;
      sb += b[j]!;
      sc += c[j]!;
    }
    ma[r] = sa / n;
    mb[r] = sb / n;
    mc[r] = sc / n;
  }
  const iv = (m: Float64Array): [number, number] => {
    m.sort();
    return [quantileSorted(m, 0.025), quantileSorted(m, 0.975)];
  };
  return [iv(ma), iv(mb), iv(mc)];
}
