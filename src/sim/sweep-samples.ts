/**
 * `sim --sweep`, U5's part: the number of samples n and the threshold block
 * swept over one environment and policy, the frontier over mean rounds,
 * shipped genuine findings and calls, and one recommended point. Pure and
 * deterministic (every point uses the same seed, so the same trials).
 */
import type { SimParams } from './params.js';
import { type Interval, simulate } from './simulate.js';

/** The sample counts swept; block runs 1..n for each. n = 1 is the single call, at the same per-sample rates. */
export const SWEEP_SAMPLES = [1, 3, 5] as const;

export interface SamplePoint {
  samples: number;
  block: number;
  meanRounds: number;
  roundsCi: Interval;
  shipped: number;
  shippedCi: Interval;
  reviewCalls: number;
  refuterCalls: number;
  /** Reviewer plus refuter calls per trial: the cost axis. */
  calls: number;
  falseReworks: number;
  /** No other point is at least as good on rounds, shipped and calls, and strictly better on one. */
  onFrontier: boolean;
}

export interface SampleSweep {
  points: SamplePoint[];
  recommended: SamplePoint;
  rule: string;
}

const RULE =
  'among frontier points, those whose mean shipped lies within the 95 % interval of the fewest shipped; of these the fewest calls, then the fewest rounds, then the smaller n';

const dominates = (a: SamplePoint, b: SamplePoint) =>
  a.shipped <= b.shipped &&
  a.meanRounds <= b.meanRounds &&
  a.calls <= b.calls &&
  (a.shipped < b.shipped || a.meanRounds < b.meanRounds || a.calls < b.calls);

/** Sweeps n in {1, 3, 5} and block 1..n with U5 added to `base`'s upgrades (everything else as given). */
export function sweepSamples(base: SimParams): SampleSweep {
  const upgrades = base.upgrades.includes('U5') ? [...base.upgrades] : [...base.upgrades, 'U5' as const];
  const points: SamplePoint[] = [];
  for (const samples of SWEEP_SAMPLES) {
    for (let block = 1; block <= samples; block++) {
      const c = simulate({ ...base, samples, block, upgrades }).config;
      points.push({
        samples,
        block,
        meanRounds: c.meanRounds,
        roundsCi: c.ci.meanRounds,
        shipped: c.shipped,
        shippedCi: c.ci.shipped,
        reviewCalls: c.reviewCalls,
        refuterCalls: c.refuterCalls,
        calls: Number((c.reviewCalls + c.refuterCalls).toFixed(3)),
        falseReworks: c.falseReworks,
        onFrontier: false,
      });
    }
  }
  for (const p of points) p.onFrontier = !points.some((q) => dominates(q, p));
  const frontier = points.filter((p) => p.onFrontier);
  const fewestShipped = [...frontier].sort((a, b) => a.shipped - b.shipped || a.calls - b.calls)[0]!;
  const near = frontier.filter((p) => p === fewestShipped || p.shipped <= fewestShipped.shippedCi[1]);
  const recommended = near.sort(
    (a, b) => a.calls - b.calls || a.meanRounds - b.meanRounds || a.samples - b.samples || a.block - b.block,
  )[0]!;
  return { points, recommended, rule: RULE };
}
