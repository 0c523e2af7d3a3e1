/**
 * Round logs to convergence and calibration: the empirical twin of the
 * simulator. Definitions are in docs/sim.md ("analyze"); each field below
 * names the rule it implements. Linear in the log's size.
 */
import type { StopRule } from '../core/choices.js';
import { type ParsedRoundLog, parseRoundLog } from './schema.js';
import { countRuleProgress, liveStopAt } from './stop-rule.js';

export interface AnalyzedRound {
  /** 1-based position in the log. */
  round: number;
  /** Findings that blocked when the round was decided: a blocker overturned later stays counted. */
  blocking: number;
  /** MINOR findings as reported. */
  minor: number;
  /** Findings shown wrong, any severity: refuted before rework plus overturned later. */
  overturned: number;
  /** Refuted before they cost a rework round (never blocking). */
  refuted: number;
  /** Blocked their round and were shown wrong afterwards: a round spent on a wrong blocker. */
  overturnedLater: number;
  /** Procedural demotions (scenario gate, scope lock): neither blocking nor overturned. */
  demoted: number;
  /** Progress by the rule applied (`stopRule`); round 1 is the baseline. */
  progress: boolean;
}

export interface ReviewerCalibration {
  reviewer: string;
  /** MAJOR and MODERATE findings raised, as the reviewer reported them. */
  blockersRaised: number;
  /** Of those, demoted by a procedure (gate, scope lock): not judged on their merit, not counted below. */
  demoted: number;
  refuted: number;
  overturnedLater: number;
  /** refuted + overturnedLater: the blockers that did not stand. */
  overturned: number;
  /** overturned / (blockersRaised - demoted), three decimals; 0 when none was judged. */
  overturnRate: number;
  /** A plain-words judgement (thresholds: {@link readCalibration}). */
  read: string;
  /**
   * Under repeat sampling (present only when some finding of the reviewer carries a count):
   * its findings counted across samples, those another sample found too, and their share.
   */
  reproduction?: { sampled: number; reproduced: number; rate: number };
}

/** Exactly the document `revloop analyze --json` prints. */
export interface AnalyzeResult {
  rounds: AnalyzedRound[];
  /**
   * The last round has no blocker and nothing says it went unjudged: false for an empty log (a loop
   * that never ran did not converge), a run that ended other than `completed`, or a last round
   * whose decision the log says was never recorded (a missing result is not a clear one).
   */
  converged: boolean;
  /** Why a log whose last round shows no blocker is still not converged, or null. */
  unjudged: string | null;
  /** The first round with no blocker, or null. */
  roundsToConverge: number | null;
  /** Rounds k >= 2 whose blocking is not below round k-1's while round k-1's was above 0 (the seed's reading). */
  divergentRounds: number[];
  /** `evidence` when every round carries the live loop's recorded progress, else the seed's `count` rule. */
  stopRule: StopRule;
  /** The window the rule was applied with: the log's `stopWindow`, else 2. */
  stopWindow: number;
  /** Where the live decision (core's stop rule) stops on this log by `stopRule`, or null. */
  stopRuleFiredAt: number | null;
  /** Where the seed's count rule would stop, for comparison, or null. */
  countRuleFiredAt: number | null;
  /** The stop reason the log records, or null. */
  recordedStopReason: string | null;
  /** Whether the analysis reproduces the recorded stop (no_progress at the last round, else never), or null. */
  reproducesRecord: boolean | null;
  /** Rounds that had at least one blocker overturned later. */
  roundsOnWrongBlockers: number;
  /** Sorted by reviewer name (code-unit order). */
  reviewers: ReviewerCalibration[];
}

/** Overturn rate at or above which a reviewer reads as inflating. */
export const INFLATING_RATE = 0.5;
/** Overturn rate at or above which a reviewer reads as noisy. */
export const NOISY_RATE = 0.2;
/** Fewer judged blockers than this and the reading carries a weak-evidence note. */
export const FEW_BLOCKERS = 3;
/** The seed's window: two consecutive rounds. */
const SEED_WINDOW = 2;

/** The plain-words reading of one reviewer's calibration (docs/sim.md states the thresholds). */
export function readCalibration(judged: number, overturned: number): string {
  if (judged === 0) return 'raised no blockers';
  const rate = overturned / judged;
  let read: string;
  if (rate >= INFLATING_RATE) read = 'inflating: half or more of its blockers did not stand';
  else if (rate >= NOISY_RATE) read = 'noisy: one in five or more of its blockers did not stand';
  else if (overturned > 0) read = 'calibrated: almost all of its blockers stood';
  else read = 'calibrated: every blocker stood';
  return judged < FEW_BLOCKERS ? `${read} (only ${judged} raised: weak evidence)` : read;
}

const isBlockingSeverity = (s: string) => s === 'MAJOR' || s === 'MODERATE';

type Finding = ParsedRoundLog['rounds'][number]['findings'][number];

/** What became of one finding, from the export's fields or, on a seed-format log, `overturned` alone. */
function fateOf(f: Finding) {
  const demoted = (f.demotedBy ?? null) !== null || f.because === 'demoted';
  const refuted = f.refuted === true || f.because === 'refuted';
  const later = f.overturned && !refuted && !demoted;
  const blocked = f.blockedInRound ?? (isBlockingSeverity(f.severity) && !refuted && !demoted);
  return { demoted, refuted, later, blocked };
}

interface Tally {
  raised: number;
  demoted: number;
  refuted: number;
  later: number;
  /** Findings with a count across several samples, and those more than one sample found. */
  sampled: number;
  reproduced: number;
}

/** Analyzes an already-validated round log. */
export function analyzeParsed(log: ParsedRoundLog): AnalyzeResult {
  const tally = new Map<string, Tally>();
  let wrongRounds = 0;
  const rounds = log.rounds.map((r, i) => {
    const out = {
      round: i + 1,
      blocking: 0,
      minor: 0,
      overturned: 0,
      refuted: 0,
      overturnedLater: 0,
      demoted: 0,
    };
    for (const f of r.findings) {
      const fate = fateOf(f);
      if (fate.blocked) out.blocking++;
      if (f.severity === 'MINOR') out.minor++;
      if (fate.refuted) out.refuted++;
      if (fate.later && fate.blocked) out.overturnedLater++;
      if (fate.demoted) out.demoted++;
      if (fate.refuted || fate.later) out.overturned++;
      const t = tally.get(f.reviewer) ?? {
        raised: 0,
        demoted: 0,
        refuted: 0,
        later: 0,
        sampled: 0,
        reproduced: 0,
      };
      if (f.reproduction && f.reproduction.of > 1) {
        t.sampled++;
        if (f.reproduction.seen > 1) t.reproduced++;
      }
      if (isBlockingSeverity(f.severity)) {
        t.raised++;
        if (fate.demoted) t.demoted++;
        else if (fate.refuted) t.refuted++;
        else if (fate.later) t.later++;
      }
      tally.set(f.reviewer, t);
    }
    if (out.overturnedLater > 0) wrongRounds++;
    return out;
  });
  const blocking = rounds.map((r) => r.blocking);
  const countProgress = countRuleProgress(blocking);
  const window = log.stopWindow ?? SEED_WINDOW;
  const evidence = rounds.length > 0 && log.rounds.every((r) => r.evidence != null);
  const progress = evidence ? log.rounds.map((r) => r.evidence!.progress) : countProgress;
  const stopRuleFiredAt = liveStopAt(blocking, progress, window);
  const recorded = log.stopReason ?? null;

  const reviewers = [...tally.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([reviewer, t]): ReviewerCalibration => {
      const judged = t.raised - t.demoted;
      const overturned = t.refuted + t.later;
      return {
        reviewer,
        blockersRaised: t.raised,
        demoted: t.demoted,
        refuted: t.refuted,
        overturnedLater: t.later,
        overturned,
        overturnRate: judged === 0 ? 0 : Number((overturned / judged).toFixed(3)),
        read: readCalibration(judged, overturned),
        ...(t.sampled > 0
          ? {
              reproduction: {
                sampled: t.sampled,
                reproduced: t.reproduced,
                rate: Number((t.reproduced / t.sampled).toFixed(3)),
              },
            }
          : {}),
      };
    });
  const last = rounds[rounds.length - 1];
  const firstClear = rounds.find((r) => r.blocking === 0);
  const unjudged = unjudgedReason(log);
  return {
    rounds: rounds.map((r, k) => ({ ...r, progress: progress[k]! })),
    converged: last !== undefined && last.blocking === 0 && unjudged === null,
    unjudged,
    roundsToConverge: firstClear?.round ?? null,
    divergentRounds: countProgress.flatMap((p, k) => (p ? [] : [k + 1])),
    stopRule: evidence ? 'evidence' : 'count',
    stopWindow: window,
    stopRuleFiredAt,
    countRuleFiredAt: liveStopAt(blocking, countProgress, window),
    recordedStopReason: recorded,
    // The live decision checks the stop rule before the budget, so any other stop means it never fired.
    reproducesRecord:
      recorded === null
        ? null
        : recorded === 'no_progress'
          ? stopRuleFiredAt === rounds.length
          : stopRuleFiredAt === null,
    roundsOnWrongBlockers: wrongRounds,
    reviewers,
  };
}

/** What in the log says its last round was never judged: the run's end, or a decision recorded as missing. */
function unjudgedReason(log: ParsedRoundLog): string | null {
  if (log.status != null && log.status !== 'completed')
    return `the run ended ${log.status}${log.outcome ? ` / ${log.outcome}` : ''}, with no verdict`;
  const last = log.rounds[log.rounds.length - 1];
  if (last && last.decision === null) return `round ${log.rounds.length} has no recorded decision`;
  return null;
}

/**
 * Validates and analyzes a round log (any JSON value; extra fields are fine).
 * @throws RoundLogError naming the JSON path of the first bad field (a UsageError: exit 2).
 */
export function analyzeRoundLog(doc: unknown): AnalyzeResult {
  return analyzeParsed(parseRoundLog(doc));
}
