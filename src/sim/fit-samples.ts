/**
 * `sim --fit`, U5's part: the per-sample rates of true and false findings
 * estimated from the reproduction counts (`reproduction: { seen, of }`) that
 * repeat sampling writes on each finding. Seen counts of round-1 MAJOR
 * findings are a mixture of two binomials truncated at zero (a finding no
 * sample raised is not in the log); the refuter's decisions, where it ran,
 * are labels that are right with one unknown accuracy. EM fits the mixture,
 * intervals are percentile bootstraps over runs. Pure and seeded.
 */
import { UsageError } from '../core/errors.js';
import { Mulberry32 } from './prng.js';
import { quantileSorted } from './stats.js';

/** The fields of a finding this fit reads (a subset of the export's). */
export interface SampledFinding {
  severity: 'MAJOR' | 'MODERATE' | 'MINOR';
  refuted: boolean;
  demotedBy: string | null;
  blockedInRound: boolean;
  reproduction?: { seen: number; of: number } | undefined;
}
export interface SampledLog {
  rounds: { findings: SampledFinding[] }[];
}

export interface RateEstimate {
  value: number;
  /** 95 % percentile-bootstrap interval over runs. */
  ci: [number, number];
}

export interface SampleFit {
  /** Round-1 MAJOR findings with at least two samples: what the fit reads. */
  findings: number;
  /** Of those, the ones the refuter judged (the labels), 0 when the logs show no refuter. */
  labelled: number;
  /** The samples per call (the median `of`). */
  samples: number;
  /** Chance one sample raises a genuine finding its reviewer can see. */
  sampleDetection: RateEstimate;
  /** Chance one sample raises a given plausible but wrong claim. */
  sampleFalsePositive: RateEstimate;
  /** Share of genuine findings among the MAJORs read. */
  trueShare: RateEstimate;
  /** The refuter's accuracy as the labels show it, or null without labels. */
  refuterAccuracy: RateEstimate | null;
}

/** The least data the fit needs: below it the mixture is not told apart from noise. */
export const MIN_SAMPLED_FINDINGS = 30;
const MAX_OF = 15;
const UNLABELLED = 0;
const UPHELD = 1;
const REFUTED = 2;
const cell = (of: number, seen: number, label: number) => (of * (MAX_OF + 1) + seen) * 3 + label;
const CELLS = cell(MAX_OF, MAX_OF, REFUTED) + 1;

/** One run's round-1 MAJORs as sparse (cell, count) pairs. */
function runCells(log: SampledLog, labels: boolean): Map<number, number> {
  const out = new Map<number, number>();
  for (const f of log.rounds[0]?.findings ?? []) {
    const r = f.reproduction;
    if (f.severity !== 'MAJOR' || !r || r.of < 2 || r.of > MAX_OF || r.seen < 1 || r.seen > r.of) continue;
    const judged = labels && f.demotedBy === null && (f.refuted || f.blockedInRound);
    const label = !judged ? UNLABELLED : f.refuted ? REFUTED : UPHELD;
    const k = cell(r.of, r.seen, label);
    out.set(k, (out.get(k) ?? 0) + 1);
  }
  return out;
}

const clampP = (p: number) => Math.min(1 - 1e-6, Math.max(1e-6, p));

/** Zero-truncated binomial pmf without the binomial coefficient (it cancels between the components). */
function truncated(k: number, n: number, p: number): number {
  return (p ** k * (1 - p) ** (n - k)) / (1 - (1 - p) ** n);
}

interface Mixture {
  pTrue: number;
  pFalse: number;
  share: number;
  accuracy: number;
  /** Chance a genuine / a false finding reaches the refuter: the scenario gate demotes them at different rates. */
  judgedTrue: number;
  judgedFalse: number;
}

/**
 * EM over the histogram. The M-step for a truncated binomial counts, per
 * observed finding, the samples of the findings no sample raised as well
 * (n / (1 - (1 - p)^n) trials), which makes each step a closed form.
 */
function em(h: Float64Array): Mixture {
  let judgedAny = false;
  for (let c = 0; c < CELLS && !judgedAny; c++) judgedAny = h[c]! > 0 && c % 3 !== UNLABELLED;
  let m: Mixture = { pTrue: 0.7, pFalse: 0.2, share: 0.5, accuracy: 0.8, judgedTrue: 0.5, judgedFalse: 0.5 };
  for (let iter = 0; iter < 3000; iter++) {
    let total = 0;
    let wTotal = 0;
    let succT = 0;
    let trialsT = 0;
    let succF = 0;
    let trialsF = 0;
    let right = 0;
    let judged = 0;
    let judgedT = 0;
    for (let c = 0; c < CELLS; c++) {
      const count = h[c]!;
      if (count === 0) continue;
      const label = c % 3;
      const seen = Math.floor(c / 3) % (MAX_OF + 1);
      const of = Math.floor(c / 3 / (MAX_OF + 1));
      let lt = m.share * truncated(seen, of, m.pTrue);
      let lf = (1 - m.share) * truncated(seen, of, m.pFalse);
      if (label === UPHELD) {
        lt *= m.judgedTrue * m.accuracy;
        lf *= m.judgedFalse * (1 - m.accuracy);
      } else if (label === REFUTED) {
        lt *= m.judgedTrue * (1 - m.accuracy);
        lf *= m.judgedFalse * m.accuracy;
      } else {
        lt *= 1 - m.judgedTrue;
        lf *= 1 - m.judgedFalse;
      }
      const w = lt + lf > 0 ? lt / (lt + lf) : 0.5;
      total += count;
      wTotal += count * w;
      succT += count * w * seen;
      trialsT += (count * w * of) / (1 - (1 - m.pTrue) ** of);
      succF += count * (1 - w) * seen;
      trialsF += (count * (1 - w) * of) / (1 - (1 - m.pFalse) ** of);
      if (label !== UNLABELLED) {
        judged += count;
        judgedT += count * w;
        right += count * (label === UPHELD ? w : 1 - w);
      }
    }
    const next: Mixture = {
      pTrue: clampP(trialsT > 0 ? succT / trialsT : m.pTrue),
      pFalse: clampP(trialsF > 0 ? succF / trialsF : m.pFalse),
      share: total > 0 ? wTotal / total : m.share,
      accuracy: judged > 0 ? right / judged : m.accuracy,
      judgedTrue: wTotal > 0 ? judgedT / wTotal : 0,
      judgedFalse: total - wTotal > 0 ? (judged - judgedT) / (total - wTotal) : 0,
    };
    const moved =
      Math.abs(next.pTrue - m.pTrue) +
      Math.abs(next.pFalse - m.pFalse) +
      Math.abs(next.share - m.share) +
      Math.abs(next.accuracy - m.accuracy) +
      Math.abs(next.judgedTrue - m.judgedTrue) +
      Math.abs(next.judgedFalse - m.judgedFalse);
    m = next;
    if (moved < 1e-10) break;
  }
  // The components are named by what tells them apart: the refuter (better than chance) upholds the
  // genuine ones; without labels, genuine findings are the ones more samples repeat.
  const swap = judgedAny ? m.accuracy < 0.5 : m.pTrue < m.pFalse;
  if (!swap) return m;
  return {
    pTrue: m.pFalse,
    pFalse: m.pTrue,
    share: 1 - m.share,
    accuracy: 1 - m.accuracy,
    judgedTrue: m.judgedFalse,
    judgedFalse: m.judgedTrue,
  };
}

const RESAMPLES = 200;
const round3 = (x: number) => Number(x.toFixed(3));

function interval(xs: Float64Array): [number, number] {
  const sorted = xs.sort();
  return [round3(quantileSorted(sorted, 0.025)), round3(quantileSorted(sorted, 0.975))];
}

/**
 * Fits the per-sample rates, or returns null when no finding carries a
 * reproduction count (logs of single calls). Labels are used only when some
 * finding in the logs was refuted (a refuter ran).
 * @throws UsageError naming the minimum when fewer findings carry counts of two or more samples.
 */
export function fitSampleRates(logs: readonly SampledLog[], seed = 1): SampleFit | null {
  const any = logs.some((l) => l.rounds.some((r) => r.findings.some((f) => f.reproduction !== undefined)));
  if (!any) return null;
  const labels = logs.some((l) => l.rounds.some((r) => r.findings.some((f) => f.refuted)));
  const runs = logs.map((l) => runCells(l, labels));
  const sum = (pick: (j: number) => number): Float64Array => {
    const h = new Float64Array(CELLS);
    for (let j = 0; j < runs.length; j++) for (const [c, n] of runs[pick(j)]!) h[c]! += n;
    return h;
  };
  const all = sum((j) => j);
  let findings = 0;
  let labelled = 0;
  const ofs: number[] = [];
  for (let c = 0; c < CELLS; c++) {
    if (all[c] === 0) continue;
    findings += all[c]!;
    if (c % 3 !== UNLABELLED) labelled += all[c]!;
    for (let k = 0; k < all[c]!; k++) ofs.push(Math.floor(c / 3 / (MAX_OF + 1)));
  }
  if (findings < MIN_SAMPLED_FINDINGS) {
    throw new UsageError(
      `--fit: need at least ${MIN_SAMPLED_FINDINGS} round-1 MAJOR findings with a reproduction count of 2 or more samples (the per-sample rates), got ${findings}`,
      { flag: '--fit' },
    );
  }
  const point = em(all);
  const rng = new Mulberry32(seed);
  const draws = { pTrue: new Float64Array(RESAMPLES), pFalse: new Float64Array(RESAMPLES) };
  const shares = new Float64Array(RESAMPLES);
  const accs = new Float64Array(RESAMPLES);
  for (let b = 0; b < RESAMPLES; b++) {
    const m = em(sum(() => Math.floor(rng.next() * runs.length)));
    draws.pTrue[b] = m.pTrue;
    draws.pFalse[b] = m.pFalse;
    shares[b] = m.share;
    accs[b] = m.accuracy;
  }
  ofs.sort((a, b) => a - b);
  return {
    findings,
    labelled,
    samples: quantileSorted(ofs, 0.5),
    sampleDetection: { value: round3(point.pTrue), ci: interval(draws.pTrue) },
    sampleFalsePositive: { value: round3(point.pFalse), ci: interval(draws.pFalse) },
    trueShare: { value: round3(point.share), ci: interval(shares) },
    refuterAccuracy: labelled > 0 ? { value: round3(point.accuracy), ci: interval(accs) } : null,
  };
}
