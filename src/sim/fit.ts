/**
 * `sim --fit`: the model's parameters estimated from exported round logs of
 * real runs (docs/sim.md, "Fitting a team"). Each estimator reads one thing
 * the model makes observable in round 1 or in a re-raise; intervals are
 * percentile bootstraps over runs. Pure and seeded.
 */
import { UsageError } from '../core/errors.js';
import { fitSampleRates, type SampleFit } from './fit-samples.js';
import { DEFAULT_PARAMS, type Environment, type SimParams } from './params.js';
import { Mulberry32 } from './prng.js';
import { quantileSorted } from './stats.js';

/** One finding as `--fit` needs it: the export's fields (`revloop export --format rounds`). */
export interface FitFinding {
  reviewer: string;
  severity: 'MAJOR' | 'MODERATE' | 'MINOR';
  refuted: boolean;
  /** `no_scenario` and `scope_lock` are read; any other procedural demotion counts as neither. */
  demotedBy: string | null;
  /** How many of the reviewer's samples raised it, of how many (repeat sampling); absent for a single call. */
  reproduction?: { seen: number; of: number } | undefined;
  blockedInRound: boolean;
  file: string;
  line: number;
}
export interface FitLog {
  rounds: { findings: FitFinding[] }[];
}

/** What one run contributes: counts the estimators sum over runs. */
interface RunStats {
  reviewers: number;
  modR1: number;
  modR1Gated: number;
  modR1Kept: number;
  modR1Refuted: number;
  majR1: number;
  majR1Gated: number;
  majR1Kept: number;
  majR1Refuted: number;
  reraised: number;
  reraisedGated: number;
  blockersR1: number;
  blockersR1Fixed: number;
}

const STAT_KEYS = [
  'modR1',
  'modR1Gated',
  'modR1Kept',
  'modR1Refuted',
  'majR1',
  'majR1Gated',
  'majR1Kept',
  'majR1Refuted',
  'reraised',
  'reraisedGated',
  'blockersR1',
  'blockersR1Fixed',
] as const;
type Sums = Record<(typeof STAT_KEYS)[number] | 'runs', number>;

/** The re-raise slack of the live loop's progress rule (core/progress.ts): two lines either side. */
const SLACK = 2;
const near = (a: FitFinding, b: FitFinding) =>
  a.reviewer === b.reviewer && a.file === b.file && Math.abs(a.line - b.line) <= SLACK;

function runStats(log: FitLog): RunStats {
  const s: RunStats = {
    reviewers: new Set(log.rounds.flatMap((r) => r.findings.map((f) => f.reviewer))).size,
    modR1: 0,
    modR1Gated: 0,
    modR1Kept: 0,
    modR1Refuted: 0,
    majR1: 0,
    majR1Gated: 0,
    majR1Kept: 0,
    majR1Refuted: 0,
    reraised: 0,
    reraisedGated: 0,
    blockersR1: 0,
    blockersR1Fixed: 0,
  };
  const first = log.rounds[0]?.findings ?? [];
  for (const f of first) {
    const gated = f.demotedBy === 'no_scenario';
    if (f.severity === 'MODERATE') {
      s.modR1++;
      if (gated) s.modR1Gated++;
      else if (f.demotedBy === null) {
        s.modR1Kept++;
        if (f.refuted) s.modR1Refuted++;
      }
    } else if (f.severity === 'MAJOR') {
      s.majR1++;
      if (gated) s.majR1Gated++;
      else if (f.demotedBy === null) {
        s.majR1Kept++;
        if (f.refuted) s.majR1Refuted++;
      }
    }
  }
  for (let k = 1; k < log.rounds.length; k++) {
    const prev = log.rounds[k - 1]!.findings;
    const cur = log.rounds[k]!.findings;
    for (const f of cur) {
      if (f.severity === 'MAJOR' && prev.some((p) => p.severity === 'MAJOR' && near(p, f))) {
        s.reraised++;
        if (f.demotedBy === 'no_scenario') s.reraisedGated++;
      }
    }
    if (k === 1) {
      for (const b of prev) {
        if (b.severity !== 'MAJOR' || !b.blockedInRound) continue;
        s.blockersR1++;
        // An unfixed defect comes back at its own severity; a nit or a conflict on the same lines is not it.
        if (!cur.some((f) => f.severity === 'MAJOR' && near(b, f))) s.blockersR1Fixed++;
      }
    }
  }
  return s;
}

function sum(stats: readonly RunStats[], pick: (i: number) => number, n: number): Sums {
  const out = { runs: n } as Sums;
  for (const key of STAT_KEYS) out[key] = 0;
  for (let j = 0; j < n; j++) {
    const s = stats[pick(j)]!;
    for (const key of STAT_KEYS) out[key] += s[key];
  }
  return out;
}

const clamp01 = (x: number) => (Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : 0);

/** The estimated quantities (docs/sim.md says which observation each one reads). */
export const FITTED = [
  'seenPerReviewer',
  'falsePositive',
  'vague',
  'vagueFalse',
  'inflation',
  'gaming',
  'fixSuccess',
  'refuterAccuracy',
] as const;
export type Fitted = (typeof FITTED)[number];

function estimate(t: Sums, reviewers: number): Record<Fitted, number> {
  const perReviewer = t.runs * reviewers;
  const inflation = t.modR1 / perReviewer;
  const gaming = 1 - t.modR1Gated / t.modR1;
  const acc = clamp01(t.modR1Refuted / t.modR1Kept);
  const vague = clamp01(t.reraisedGated / t.reraised);
  const m = t.majR1 / perReviewer;
  const kept = t.majR1Kept / perReviewer;
  const rho = t.majR1Refuted / t.majR1Kept;
  // The false share among kept MAJORs, undoing the refuter's errors (needs accuracy away from 1/2).
  const s = Math.abs(2 * acc - 1) < 1e-9 ? 0.5 : clamp01((rho - (1 - acc)) / (2 * acc - 1));
  const seen = Math.min(m, ((1 - s) * kept) / Math.max(1e-9, 1 - vague));
  const falsePositive = clamp01(m - seen);
  const vagueFalse = falsePositive > 0 ? clamp01(1 - (s * kept) / falsePositive) : DEFAULT_PARAMS.vagueFalse;
  // Among blockers that survived the refuter, the false ones are "fixed" by any rework.
  const sb = (s * (1 - acc)) / Math.max(1e-9, s * (1 - acc) + (1 - s) * acc);
  const fixedShare = t.blockersR1Fixed / t.blockersR1;
  const fixSuccess = sb >= 1 ? 0 : clamp01((fixedShare - sb) / (1 - sb));
  return {
    seenPerReviewer: seen,
    falsePositive,
    vague,
    vagueFalse,
    inflation: clamp01(inflation),
    gaming: clamp01(gaming),
    fixSuccess,
    refuterAccuracy: acc,
  };
}

/** The least data a fit needs, each with what it estimates (a clearer error than a meaningless number). */
const MINIMUMS: [keyof Sums, number, string][] = [
  ['runs', 10, 'runs'],
  ['modR1', 10, 'MODERATE findings in round 1 (they estimate inflation, gaming and refuter accuracy)'],
  ['modR1Kept', 5, 'round-1 MODERATE findings that passed the scenario gate (refuter accuracy)'],
  ['majR1Kept', 10, 'round-1 MAJOR findings that passed the scenario gate (false positives)'],
  ['reraised', 5, 'MAJOR findings raised again by the same reviewer on the same lines (vagueness)'],
  ['blockersR1', 5, 'round-1 MAJOR blockers followed by a round 2 (fix success)'],
];

export interface FitEstimate {
  value: number;
  /** 95 % percentile-bootstrap interval over runs. */
  ci: [number, number];
}

export interface FitResult {
  runs: number;
  reviewers: number;
  estimates: Record<Fitted, FitEstimate>;
  /** The per-sample rates from reproduction counts, or null when the logs carry none. */
  samples: SampleFit | null;
  /**
   * The environment to simulate: the estimates, with defects = seenPerReviewer / detection;
   * with reproduction counts, the per-sample rates replace detection's share and falsePositive.
   */
  environment: Partial<Environment> & Partial<Pick<SimParams, 'sampleDetection' | 'samples'>>;
}

const RESAMPLES = 300;
const round3 = (x: number) => Number(x.toFixed(3));

/**
 * Fits the model to round logs (each one run).
 * @throws UsageError naming the minimum data a fit needs, or what the logs lack (exit 2).
 */
export function fitRoundLogs(logs: readonly FitLog[], seed = 1): FitResult {
  const stats = logs.map(runStats);
  const all = sum(stats, (j) => j, stats.length);
  for (const [key, min, what] of MINIMUMS) {
    if (all[key] < min) {
      throw new UsageError(`--fit: need at least ${min} ${what} across the logs, got ${all[key]}`, {
        flag: '--fit',
      });
    }
  }
  if (all.modR1Gated + all.majR1Gated === 0) {
    throw new UsageError(
      '--fit: no finding was demoted by the scenario gate: fitting needs runs with U1 on',
      {
        flag: '--fit',
      },
    );
  }
  const counts = stats.map((s) => s.reviewers).sort((a, b) => a - b);
  const reviewers = Math.max(1, quantileSorted(counts, 0.5));
  const point = estimate(all, reviewers);
  const rng = new Mulberry32(seed);
  const samples = FITTED.map(() => new Float64Array(RESAMPLES));
  for (let b = 0; b < RESAMPLES; b++) {
    const t = sum(stats, () => Math.floor(rng.next() * stats.length), stats.length);
    const e = estimate(t, reviewers);
    FITTED.forEach((k, i) => {
      samples[i]![b] = Number.isFinite(e[k]) ? e[k] : point[k];
    });
  }
  const estimates = {} as Record<Fitted, FitEstimate>;
  FITTED.forEach((k, i) => {
    const sorted = samples[i]!.sort();
    estimates[k] = {
      value: round3(point[k]),
      ci: [round3(quantileSorted(sorted, 0.025)), round3(quantileSorted(sorted, 0.975))],
    };
  });
  const { seenPerReviewer, ...rates } = point;
  const perSample = fitSampleRates(logs, seed);
  const environment: FitResult['environment'] = {
    reviewers: Math.min(50, reviewers),
    defects: Math.min(1000, Math.round(seenPerReviewer / DEFAULT_PARAMS.detection)),
    ...Object.fromEntries(Object.entries(rates).map(([k, v]) => [k, round3(v)])),
    // Counted per call, the single-call estimates above mix the samples; the per-sample ones replace them.
    ...(perSample
      ? {
          falsePositive: perSample.sampleFalsePositive.value,
          sampleDetection: perSample.sampleDetection.value,
          samples: Math.min(15, perSample.samples),
        }
      : {}),
  };
  return { runs: stats.length, reviewers, estimates, samples: perSample, environment };
}

/** The fitted estimates as a markdown table (the text `sim --fit` prints before the simulation). */
export function renderFitReport(fit: FitResult): string {
  const lines = [
    `# Fitted from ${fit.runs} runs (${fit.reviewers} reviewers)`,
    '',
    '| Parameter | Estimate | 95 % interval |',
    '|---|---|---|',
    ...FITTED.map((k) => {
      const e = fit.estimates[k];
      return `| ${k} | ${e.value.toFixed(3)} | [${e.ci[0].toFixed(3)}, ${e.ci[1].toFixed(3)}] |`;
    }),
    '',
    'Not fitted (the logs do not separate them): detection (the default), oscillation, regions, simplify; ' +
      `defects = seenPerReviewer / detection = ${fit.environment.defects}.`,
    '',
  ];
  const s = fit.samples;
  if (s) {
    const row = (name: string, e: { value: number; ci: [number, number] }) =>
      `| ${name} | ${e.value.toFixed(3)} | [${e.ci[0].toFixed(3)}, ${e.ci[1].toFixed(3)}] |`;
    lines.push(
      `## Per-sample rates from reproduction counts (${s.findings} round-1 MAJORs, ${s.labelled} judged by the refuter, n = ${s.samples})`,
      '',
      '| Parameter | Estimate | 95 % interval |',
      '|---|---|---|',
      row('sampleDetection', s.sampleDetection),
      row('falsePositive (per sample)', s.sampleFalsePositive),
      row('genuine share of MAJORs', s.trueShare),
      ...(s.refuterAccuracy ? [row('refuterAccuracy (from the labels)', s.refuterAccuracy)] : []),
      '',
      'The simulation uses the per-sample falsePositive and sampleDetection, and n as --samples.',
      '',
    );
  }
  return lines.join('\n');
}
