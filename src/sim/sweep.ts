/**
 * `sim --sweep`: the live policy (stopWindow, shrinkRatio, upgrades on or off)
 * swept over one environment, the rounds-versus-shipped frontier, and a
 * recommendation that says whether the intervals separate it from the next
 * best. Pure and deterministic (every point uses the same seed).
 */
import { DEFAULT_UPGRADES, type SimParams, type Upgrade, validateParams } from './params.js';
import { type Interval, simulate } from './simulate.js';
import { type SampleSweep, sweepSamples } from './sweep-samples.js';

export { type SamplePoint, type SampleSweep, SWEEP_SAMPLES, sweepSamples } from './sweep-samples.js';

export const SWEEP_WINDOWS = [1, 2, 3, 4, 5] as const;
export const SWEEP_RATIOS = [0.05, 0.1, 0.2, 0.3, 0.5] as const;
/** Upgrades on (U1-U4) or off (the stop rule alone, so the window and ratio still matter). */
export const SWEEP_UPGRADES: readonly (readonly Upgrade[])[] = [DEFAULT_UPGRADES, ['U4']];

export interface SweepPoint {
  stopWindow: number;
  shrinkRatio: number;
  upgrades: Upgrade[];
  meanRounds: number;
  roundsCi: Interval;
  p90Rounds: number;
  shipped: number;
  shippedCi: Interval;
  terminatedPct: number;
  /** No other point ships no more and runs no longer, with one of them strictly less. */
  onFrontier: boolean;
}

export interface SweepResult {
  points: SweepPoint[];
  recommended: SweepPoint;
  /** The frontier point that ships least after the recommended one, or null. */
  runnerUp: SweepPoint | null;
  /** Whether the shipped intervals of the two do not overlap. */
  separated: boolean;
  confidence: string;
  /** U5's sample count and threshold swept over the same environment (its own frontier and rule). */
  samples: SampleSweep;
}

const dominates = (a: SweepPoint, b: SweepPoint) =>
  a.shipped <= b.shipped &&
  a.meanRounds <= b.meanRounds &&
  (a.shipped < b.shipped || a.meanRounds < b.meanRounds);

/**
 * Sweeps 50 policies of `base` (its environment, trials, seed and horizon).
 * The recommendation: among frontier points that terminate every trial (all
 * points when none does), the fewest shipped genuine findings; among points
 * whose mean shipped lies inside its interval, the fewest mean rounds.
 */
export function sweep(base: SimParams): SweepResult {
  validateParams(base);
  const points: SweepPoint[] = [];
  for (const upgrades of SWEEP_UPGRADES) {
    for (const stopWindow of SWEEP_WINDOWS) {
      for (const shrinkRatio of SWEEP_RATIOS) {
        const c = simulate({ ...base, stopWindow, shrinkRatio, upgrades: [...upgrades] }).config;
        points.push({
          stopWindow,
          shrinkRatio,
          upgrades: [...upgrades],
          meanRounds: c.meanRounds,
          roundsCi: c.ci.meanRounds,
          p90Rounds: c.p90Rounds,
          shipped: c.shipped,
          shippedCi: c.ci.shipped,
          terminatedPct: c.terminatedPct,
          onFrontier: false,
        });
      }
    }
  }
  for (const p of points) p.onFrontier = !points.some((q) => dominates(q, p));
  const frontier = points.filter((p) => p.onFrontier);
  const terminating = frontier.filter((p) => p.terminatedPct === 100);
  const pool = (terminating.length > 0 ? terminating : frontier).sort(
    (a, b) => a.shipped - b.shipped || a.meanRounds - b.meanRounds,
  );
  const best = pool[0]!;
  const near = pool.filter((p) => p.shipped <= best.shippedCi[1]);
  const recommended = [...near].sort((a, b) => a.meanRounds - b.meanRounds || a.shipped - b.shipped)[0]!;
  const runnerUp = pool.find((p) => p !== recommended) ?? null;
  const separated =
    runnerUp !== null &&
    (recommended.shippedCi[1] < runnerUp.shippedCi[0] || runnerUp.shippedCi[1] < recommended.shippedCi[0]);
  const confidence =
    runnerUp === null
      ? 'the only frontier point'
      : separated
        ? 'its shipped interval does not overlap the runner-up: the difference is more than chance at this trial count'
        : 'its shipped interval overlaps the runner-up: at this trial count the two are not told apart (raise --trials)';
  return { points, recommended, runnerUp, separated, confidence, samples: sweepSamples(base) };
}

const policy = (p: SweepPoint) =>
  `stopWindow ${p.stopWindow}, shrinkRatio ${p.shrinkRatio}, ${p.upgrades.length ? p.upgrades.join('+') : 'no upgrades'}`;

function renderSampleSweep(r: SampleSweep): string {
  const lines = [
    `## Repeat sampling (U5): ${r.points.length} points of n and block, ${r.points.filter((p) => p.onFrontier).length} on the rounds / shipped / calls frontier`,
    '',
    '| n | block | mean rounds [95 %] | shipped [95 %] | calls (reviewer + refuter) | false reworks | frontier |',
    '|---|---|---|---|---|---|---|',
  ];
  for (const p of r.points) {
    lines.push(
      `| ${p.samples} | ${p.block} | ${p.meanRounds.toFixed(2)} [${p.roundsCi[0].toFixed(2)}, ${p.roundsCi[1].toFixed(2)}] | ${p.shipped.toFixed(3)} [${p.shippedCi[0].toFixed(3)}, ${p.shippedCi[1].toFixed(3)}] | ${p.calls.toFixed(1)} (${p.reviewCalls.toFixed(1)} + ${p.refuterCalls.toFixed(1)}) | ${p.falseReworks.toFixed(2)} | ${p.onFrontier ? 'yes' : ''} |`,
    );
  }
  const best = r.recommended;
  lines.push(
    '',
    `Recommended: n ${best.samples}, block ${best.block} (${best.meanRounds.toFixed(2)} rounds, ${best.shipped.toFixed(3)} shipped, ${best.calls.toFixed(1)} calls).`,
    `Rule: ${r.rule}.`,
    '',
  );
  return lines.join('\n');
}

/** The frontier table and the recommendation, as markdown. */
export function renderSweepReport(r: SweepResult): string {
  const lines = [
    `# Policy sweep: ${r.points.length} points, ${r.points.filter((p) => p.onFrontier).length} on the frontier`,
    '',
    '| stopWindow | shrinkRatio | upgrades | mean rounds [95 %] | p90 | shipped [95 %] | terminated |',
    '|---|---|---|---|---|---|---|',
  ];
  for (const p of r.points.filter((x) => x.onFrontier)) {
    lines.push(
      `| ${p.stopWindow} | ${p.shrinkRatio} | ${p.upgrades.join('+') || 'none'} | ${p.meanRounds.toFixed(2)} [${p.roundsCi[0].toFixed(2)}, ${p.roundsCi[1].toFixed(2)}] | ${p.p90Rounds} | ${p.shipped.toFixed(3)} [${p.shippedCi[0].toFixed(3)}, ${p.shippedCi[1].toFixed(3)}] | ${p.terminatedPct.toFixed(1)}% |`,
    );
  }
  lines.push(
    '',
    `Recommended: ${policy(r.recommended)} (mean ${r.recommended.meanRounds.toFixed(2)} rounds, ${r.recommended.shipped.toFixed(3)} shipped)` +
      (r.runnerUp ? `; runner-up: ${policy(r.runnerUp)}.` : '.'),
    `Confidence: ${r.confidence}.`,
    '',
    renderSampleSweep(r.samples),
  );
  return lines.join('\n');
}
