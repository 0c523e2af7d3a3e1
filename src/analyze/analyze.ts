/**
 * Round logs to convergence and calibration: the empirical twin of the
 * simulator. Definitions are in docs/sim.md ("analyze"); each field below
 * names the rule it implements.
 */
import { type ParsedRoundLog, parseRoundLog } from './schema.js';

export interface AnalyzedRound {
  /** 1-based position in the log. */
  round: number;
  /** MAJOR and MODERATE findings not overturned. */
  blocking: number;
  /** MINOR findings, overturned or not. */
  minor: number;
  /** Overturned findings of any severity. */
  overturned: number;
}

export interface ReviewerCalibration {
  reviewer: string;
  /** MAJOR and MODERATE findings raised, overturned or not. */
  blockersRaised: number;
  /** Of those, how many were overturned. */
  overturned: number;
  /** overturned / blockersRaised, three decimals; 0 when none raised. */
  overturnRate: number;
  /** A plain-words judgement (thresholds: {@link readCalibration}). */
  read: string;
}

/** Exactly the document `revloop analyze --json` prints. */
export interface AnalyzeResult {
  rounds: AnalyzedRound[];
  /** The last round has no blocker (false for an empty log: a loop that never ran did not converge). */
  converged: boolean;
  /** The first round with no blocker, or null. */
  roundsToConverge: number | null;
  /** Rounds k >= 2 whose blocking is not below round k-1's while round k-1's was above 0. */
  divergentRounds: number[];
  /** The second of two consecutive divergent rounds (the first time it happens), or null. */
  stopRuleFiredAt: number | null;
  /** Sorted by reviewer name (code-unit order). */
  reviewers: ReviewerCalibration[];
}

/** Overturn rate at or above which a reviewer reads as inflating. */
export const INFLATING_RATE = 0.5;
/** Overturn rate at or above which a reviewer reads as noisy. */
export const NOISY_RATE = 0.2;
/** Fewer blockers than this and the reading carries a weak-evidence note. */
export const FEW_BLOCKERS = 3;

/** The plain-words reading of one reviewer's calibration (docs/sim.md states the thresholds). */
export function readCalibration(raised: number, overturned: number): string {
  if (raised === 0) return 'raised no blockers';
  const rate = overturned / raised;
  let read: string;
  if (rate >= INFLATING_RATE) read = 'inflating: half or more of its blockers did not stand';
  else if (rate >= NOISY_RATE) read = 'noisy: one in five or more of its blockers did not stand';
  else if (overturned > 0) read = 'calibrated: almost all of its blockers stood';
  else read = 'calibrated: every blocker stood';
  return raised < FEW_BLOCKERS ? `${read} (only ${raised} raised: weak evidence)` : read;
}

const isBlockingSeverity = (s: string) => s === 'MAJOR' || s === 'MODERATE';

/** Analyzes an already-validated round log. */
export function analyzeParsed(log: ParsedRoundLog): AnalyzeResult {
  const rounds: AnalyzedRound[] = log.rounds.map((r, i) => ({
    round: i + 1,
    blocking: r.findings.filter((f) => isBlockingSeverity(f.severity) && !f.overturned).length,
    minor: r.findings.filter((f) => f.severity === 'MINOR').length,
    overturned: r.findings.filter((f) => f.overturned).length,
  }));

  const divergentRounds: number[] = [];
  let stopRuleFiredAt: number | null = null;
  for (let k = 1; k < rounds.length; k++) {
    const prev = rounds[k - 1]!.blocking;
    if (prev > 0 && rounds[k]!.blocking >= prev) {
      divergentRounds.push(k + 1);
      if (stopRuleFiredAt === null && divergentRounds.includes(k)) stopRuleFiredAt = k + 1;
    }
  }
  const last = rounds[rounds.length - 1];
  const firstClear = rounds.find((r) => r.blocking === 0);

  const tally = new Map<string, { raised: number; overturned: number }>();
  for (const r of log.rounds) {
    for (const f of r.findings) {
      const t = tally.get(f.reviewer) ?? { raised: 0, overturned: 0 };
      if (isBlockingSeverity(f.severity)) {
        t.raised++;
        if (f.overturned) t.overturned++;
      }
      tally.set(f.reviewer, t);
    }
  }
  const reviewers = [...tally.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([reviewer, t]) => ({
      reviewer,
      blockersRaised: t.raised,
      overturned: t.overturned,
      overturnRate: t.raised === 0 ? 0 : Number((t.overturned / t.raised).toFixed(3)),
      read: readCalibration(t.raised, t.overturned),
    }));

  return {
    rounds,
    converged: last !== undefined && last.blocking === 0,
    roundsToConverge: firstClear?.round ?? null,
    divergentRounds,
    stopRuleFiredAt,
    reviewers,
  };
}

/**
 * Validates and analyzes a round log (any JSON value; extra fields are fine).
 * @throws RoundLogError naming the JSON path of the first bad field (a UsageError: exit 2).
 */
export function analyzeRoundLog(doc: unknown): AnalyzeResult {
  return analyzeParsed(parseRoundLog(doc));
}
