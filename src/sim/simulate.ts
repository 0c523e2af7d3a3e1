/**
 * Runs the baseline and the configuration over the same trials and the same
 * horizon, reads the capped baseline off the baseline's own trials, and
 * reduces each side to the summary `revloop sim --json` prints.
 */
import { type SimParams, validateParams } from './params.js';
import { streamSeed } from './prng.js';
import { bootstrapMeans, quantileSorted, wilson } from './stats.js';
import { runTrial, type TrialOutcome, TrialState } from './trial.js';

/** A 95 % interval [low, high], in the unit of the value it belongs to. */
export type Interval = [number, number];

/** One side's summary; percentages 0-100, one decimal; means three decimals. */
export interface SideSummary {
  /** Mean open blockers after each round's review; a stopped trial keeps its last count. */
  perRound: number[];
  terminatedPct: number;
  convergedPct: number;
  escalatedPct: number;
  cappedPct: number;
  /** Escalated trials that, played on without the stop rule, converge before the horizon. */
  falseEscalationPct: number;
  meanRounds: number;
  medianRounds: number;
  p90Rounds: number;
  /** Mean genuine findings that ship: defects and conflicts open at the stop. */
  shipped: number;
  shippedDefects: number;
  shippedConflicts: number;
  /** Mean rework rounds that spent work on at least one false blocker. */
  wastedRounds: number;
  /** Mean false blockers reworked. */
  falseReworks: number;
  /** Mean reviewer calls per trial (U5 counts each sample that ran). */
  reviewCalls: number;
  /** Mean refuter calls per trial (U2; U6's memory answers some without one). */
  refuterCalls: number;
  /** Mean findings U6 refuted from memory per trial. */
  memoryHits: number;
  /** Memory hits among all refutation look-ups (hits + refuter calls), pooled over trials; 0 when none. */
  memoryHitPct: number;
  /** Wilson intervals for the rates, bootstrap intervals for the means. */
  ci: {
    terminatedPct: Interval;
    convergedPct: Interval;
    escalatedPct: Interval;
    falseEscalationPct: Interval;
    meanRounds: Interval;
    shipped: Interval;
    wastedRounds: Interval;
  };
}

/** Exactly the document `revloop sim --json` prints. */
export interface SimResult {
  params: SimParams;
  /** No upgrades, no cap: what the loop does on its own over the horizon. */
  baseline: SideSummary;
  /** The same trials stopped by the round cap: the cap's own effect. */
  capped: SideSummary;
  config: SideSummary;
}

const fixed = (x: number, digits: number): number => Number(x.toFixed(digits));
const pctInterval = ([lo, hi]: [number, number]): Interval => [fixed(100 * lo, 1), fixed(100 * hi, 1)];

/**
 * Reduces one side's trial outcomes. Every side resamples the same trial
 * indices in its bootstrap (a paired bootstrap), so equal sides get equal intervals.
 */
export function summarize(outcomes: TrialOutcome[], length: number, seed: number): SideSummary {
  const n = outcomes.length;
  const perRound = new Array<number>(length).fill(0);
  const count = { converged: 0, escalated: 0, capped: 0, running: 0 };
  let falseEsc = 0;
  const rounds = new Float64Array(n);
  const shipped = new Float64Array(n);
  const wasted = new Float64Array(n);
  let defects = 0;
  let conflicts = 0;
  let reworks = 0;
  let reviewCalls = 0;
  let refuterCalls = 0;
  let memoryHits = 0;
  outcomes.forEach((o, t) => {
    count[o.stop]++;
    if (o.falseEscalation) falseEsc++;
    rounds[t] = o.rounds;
    shipped[t] = o.shippedDefects + o.shippedConflicts;
    wasted[t] = o.wasted;
    defects += o.shippedDefects;
    conflicts += o.shippedConflicts;
    reworks += o.falseReworks;
    reviewCalls += o.reviewCalls;
    refuterCalls += o.refuterCalls;
    memoryHits += o.memoryHits;
    const last = o.blocking[o.blocking.length - 1] ?? 0;
    for (let k = 0; k < length; k++) perRound[k]! += o.blocking[k] ?? last;
  });
  const pct = (c: number) => fixed((100 * c) / n, 1);
  const mean = (xs: Float64Array) => fixed(xs.reduce((a, b) => a + b, 0) / n, 3);
  const sorted = Float64Array.from(rounds).sort();
  const median = n % 2 === 1 ? sorted[n >> 1]! : (sorted[(n >> 1) - 1]! + sorted[n >> 1]!) / 2;
  const [ciRounds, ciShipped, ciWasted] = bootstrapMeans(rounds, shipped, wasted, streamSeed(seed, 0xb0));
  const meanCi = (iv: [number, number]): Interval => [fixed(iv[0], 3), fixed(iv[1], 3)];
  return {
    perRound: perRound.map((s) => fixed(s / n, 3)),
    terminatedPct: pct(n - count.running),
    convergedPct: pct(count.converged),
    escalatedPct: pct(count.escalated),
    cappedPct: pct(count.capped),
    falseEscalationPct: pct(falseEsc),
    meanRounds: mean(rounds),
    medianRounds: fixed(median, 3),
    p90Rounds: quantileSorted(sorted, 0.9),
    shipped: mean(shipped),
    shippedDefects: fixed(defects / n, 3),
    shippedConflicts: fixed(conflicts / n, 3),
    wastedRounds: mean(wasted),
    falseReworks: fixed(reworks / n, 3),
    reviewCalls: fixed(reviewCalls / n, 3),
    refuterCalls: fixed(refuterCalls / n, 3),
    memoryHits: fixed(memoryHits / n, 3),
    memoryHitPct:
      memoryHits + refuterCalls === 0 ? 0 : fixed((100 * memoryHits) / (memoryHits + refuterCalls), 1),
    ci: {
      terminatedPct: pctInterval(wilson(n - count.running, n)),
      convergedPct: pctInterval(wilson(count.converged, n)),
      escalatedPct: pctInterval(wilson(count.escalated, n)),
      falseEscalationPct: pctInterval(wilson(falseEsc, n)),
      meanRounds: meanCi(ciRounds),
      shipped: meanCi(ciShipped),
      wastedRounds: meanCi(ciWasted),
    },
  };
}

/**
 * Simulates `params.trials` trials of the baseline (no upgrades) and of the
 * configuration (`params.upgrades`), both over `params.maxRounds`; the capped
 * baseline is the baseline's trials as a cap at `params.cap` stops them.
 * Trial t of every side draws from the same seeded streams. Pure and deterministic.
 * @throws UsageError when a parameter is out of range.
 */
export function simulate(params: SimParams): SimResult {
  const p = validateParams(params);
  const base: TrialOutcome[] = [];
  const capped: TrialOutcome[] = [];
  const conf: TrialOutcome[] = [];
  let length = 0;
  const baseSide = { upgrades: [], capAt: p.cap };
  const confSide = { upgrades: p.upgrades };
  const baseState = new TrialState(p, baseSide.upgrades);
  const confState = new TrialState(p, confSide.upgrades);
  for (let t = 0; t < p.trials; t++) {
    const b = runTrial(p, baseSide, t, baseState);
    const c = runTrial(p, confSide, t, confState).outcome;
    base.push(b.outcome);
    capped.push(b.capped!);
    conf.push(c);
    length = Math.max(length, b.outcome.rounds, c.rounds);
  }
  return {
    params: { ...p, upgrades: [...p.upgrades] },
    baseline: summarize(base, length, p.seed),
    capped: summarize(capped, length, p.seed),
    config: summarize(conf, length, p.seed),
  };
}
