/**
 * The record's content (invariant 14): an in-toto Statement v1 whose subject
 * is the run's FINAL head (fixes inside a run move it) and whose predicate
 * carries the snapshot, the decision and the round log. Pure: everything comes
 * from the report, so the same report always yields the same statement.
 */
import type { Coverage } from '../core/coverage.js';
import type { FindingRow, Rerun } from '../core/ledger.js';
import { type ReuseSummary, reuseSummary } from '../core/reuse-summary.js';
import { isBlocker, type RoundLog, type RunReport, roundLog } from '../core/run-report.js';
import { stageRows } from '../core/stage-results.js';
import type { EndReason, Outcome, RunStatus, Snapshot, StopReason } from '../core/types.js';

export const STATEMENT_TYPE = 'https://in-toto.io/Statement/v1';
/** Versioned: a breaking change to the predicate gets a new type and version. */
export const PREDICATE_TYPE = 'https://revloop.dev/attestation/review/v1';
export const PREDICATE_VERSION = 1;

export interface RecordFinding extends FindingRow {
  /** Whether it still blocked when the run ended. */
  blocking: boolean;
}

export interface ReviewPredicate {
  version: typeof PREDICATE_VERSION;
  runId: string;
  snapshotKey: string;
  snapshot: Snapshot;
  /** The head the record covers: the snapshot head, or the last fix commit. */
  finalHead: string;
  /** sha256 of the diff snapshot.mergeBase..finalHead (the git adapter's diffDigest). */
  finalDiffDigest: string;
  status: RunStatus;
  outcome: Outcome | null;
  stopReason: StopReason | null;
  reason: EndReason | null;
  rounds: RoundLog['rounds'];
  findings: RecordFinding[];
  costUsd: number;
  /**
   * Per reviewer, the files of the final review round's diff, those
   * it reviewed and those ignored with their rule; `verify` refuses a record
   * in which a file not ignored went unreviewed. Absent in records of runs
   * without a review round, and in those made before coverage existed.
   */
  coverage?: Record<string, Coverage>;
  /**
   * Whether every process of the run (each call's agent, each check) ran under the confined
   * runner (docs/security.md). Absent in records made before it was recorded: read as false.
   */
  confined: boolean;
  /**
   * Present when the run reviewed its revision again on purpose (`review --rerun`):
   * which rerun, who asked and why. A newer record of the same head supersedes an older one.
   */
  rerun?: Rerun;
  /**
   * Present when verdicts were reused from identical calls answered earlier
   * (not asked again, at no cost): how many of each role's, and each one's
   * source call, run and revision. `verify --no-reuse` refuses such a record.
   */
  reused?: ReuseSummary;
  /** ISO 8601 UTC. */
  createdAt: string;
  endedAt: string | null;
}

/**
 * A writer's type as a reader that checked only the keys in `Checked` may use
 * it: every key the writer writes is there (a field added to the writer shows
 * up in the reader's type without being written again), the checked ones at
 * the writer's type, the rest `unknown` until the reader checks them too.
 */
export type AsRead<T, Checked extends keyof T> = { [K in keyof T]: K extends Checked ? T[K] : unknown };

export interface Statement {
  _type: typeof STATEMENT_TYPE;
  subject: { name: string; digest: { gitCommit: string } }[];
  predicateType: typeof PREDICATE_TYPE;
  predicate: ReviewPredicate;
}

/** Builds the statement of a run. `finalDiffDigest` is the diff digest of mergeBase..report.run.head. */
export function buildStatement(report: RunReport, opts: { finalDiffDigest: string }): Statement {
  const { run } = report;
  const snap = run.snapshot;
  const findings = [...report.findings]
    .sort((a, b) => a.round - b.round || cmp(a.reviewer, b.reviewer) || a.index - b.index)
    .map((f): RecordFinding => ({ ...f, blocking: isBlocker(f) }));
  return {
    _type: STATEMENT_TYPE,
    subject: [{ name: `git+${snap.repo || snap.change}`, digest: { gitCommit: run.head } }],
    predicateType: PREDICATE_TYPE,
    predicate: {
      version: PREDICATE_VERSION,
      runId: run.id,
      snapshotKey: run.snapshotKey,
      snapshot: snap,
      finalHead: run.head,
      finalDiffDigest: opts.finalDiffDigest,
      status: run.status,
      outcome: run.outcome,
      stopReason: run.stopReason,
      reason: run.reason,
      rounds: roundLog(report).rounds,
      findings,
      costUsd: run.costUsd,
      ...finalCoverage(report),
      confined: ranConfined(report),
      ...(run.rerun ? { rerun: run.rerun } : {}),
      ...reusedOf(report),
      createdAt: new Date(run.createdAt).toISOString(),
      endedAt: run.endedAt === null ? null : new Date(run.endedAt).toISOString(),
    },
  };
}

function reusedOf(report: RunReport): { reused?: ReuseSummary } {
  const reused = reuseSummary(report.verdicts);
  return reused ? { reused } : {};
}

/** The coverage of the last review round recorded (the one that judged the final head). */
function finalCoverage(report: RunReport): { coverage?: Record<string, Coverage> } {
  const reviews = stageRows(report.stages, 'review')
    .sort((a, b) => b.round - a.round)
    .map((s) => s.result.coverage);
  const coverage = reviews[0];
  return coverage ? { coverage } : {};
}

/**
 * True only when the run has verdicts and every process behind them ran
 * confined: each attempt it made, each check, and the earlier call each
 * reused verdict came from (a run whose calls were all reused made none).
 */
function ranConfined(report: RunReport): boolean {
  const checks = stageRows(report.stages, 'checks').flatMap((s) => [
    ...s.result.results,
    ...(s.result.base?.results ?? []),
  ]);
  const reused = report.verdicts.flatMap((v) => (v.reusedFrom ? [v.reusedFrom] : []));
  return (
    report.attempts.length + reused.length > 0 &&
    report.attempts.every((a) => a.confined) &&
    reused.every((r) => r.confined === true) &&
    checks.every((c) => c.confined === true)
  );
}

const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
