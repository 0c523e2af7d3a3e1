/**
 * Runs the baseline and the configuration over the same trials and reduces
 * them to the summary `revloop sim --json` prints.
 */
import { type SimParams, validateParams } from './params.js';
import { runTrial, type SideSpec, type TrialOutcome } from './trial.js';

/** One side's summary; percentages 0-100, one decimal; means three decimals. */
export interface SideSummary {
  /** Mean open blockers after each round's review; a stopped trial keeps its last count. */
  perRound: number[];
  terminatedPct: number;
  convergedPct: number;
  escalatedPct: number;
  cappedPct: number;
  meanRounds: number;
  medianRounds: number;
  escapedDefects: number;
  wastedRounds: number;
}

/** Exactly the document `revloop sim --json` prints. */
export interface SimResult {
  params: SimParams;
  baseline: SideSummary;
  config: SideSummary;
}

const fixed = (x: number, digits: number): number => Number(x.toFixed(digits));

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  if (s.length === 0) return 0;
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

function summarize(outcomes: TrialOutcome[], length: number): SideSummary {
  const n = outcomes.length;
  const perRound = new Array<number>(length).fill(0);
  const count = { converged: 0, escalated: 0, capped: 0, running: 0 };
  let escaped = 0;
  let wasted = 0;
  for (const o of outcomes) {
    count[o.stop]++;
    escaped += o.escaped;
    wasted += o.wasted;
    const last = o.blocking[o.blocking.length - 1] ?? 0;
    for (let k = 0; k < length; k++) perRound[k]! += o.blocking[k] ?? last;
  }
  const pct = (c: number) => fixed((100 * c) / n, 1);
  const rounds = outcomes.map((o) => o.rounds);
  return {
    perRound: perRound.map((s) => fixed(s / n, 3)),
    terminatedPct: pct(n - count.running),
    convergedPct: pct(count.converged),
    escalatedPct: pct(count.escalated),
    cappedPct: pct(count.capped),
    meanRounds: fixed(rounds.reduce((a, b) => a + b, 0) / n, 3),
    medianRounds: fixed(median(rounds), 3),
    escapedDefects: fixed(escaped / n, 3),
    wastedRounds: fixed(wasted / n, 3),
  };
}

/**
 * Simulates `params.trials` trials of the baseline (no upgrades, capped at
 * `params.cap`) and of the configuration (`params.upgrades`, no cap). Trial t
 * of both sides draws from the same seeded streams. Pure and deterministic.
 * @throws UsageError when a parameter is out of range.
 */
export function simulate(params: SimParams): SimResult {
  const p = validateParams(params);
  const baselineSide: SideSpec = { upgrades: [], cap: p.cap };
  const configSide: SideSpec = { upgrades: p.upgrades, cap: null };
  const base: TrialOutcome[] = [];
  const conf: TrialOutcome[] = [];
  let length = 0;
  for (let t = 0; t < p.trials; t++) {
    const b = runTrial(p, baselineSide, t);
    const c = runTrial(p, configSide, t);
    base.push(b);
    conf.push(c);
    length = Math.max(length, b.rounds, c.rounds);
  }
  return {
    params: { ...p, upgrades: [...p.upgrades] },
    baseline: summarize(base, length),
    config: summarize(conf, length),
  };
}
