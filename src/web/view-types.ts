/**
 * The JSON the dashboard's API returns: plain data shared by the server,
 * which builds it, and the browser, which renders it (type imports only).
 */
import type { AnalyzeResult, ReviewerCalibration } from '../analyze/analyze.js';
import type { OpenBlocker, RoundDecision } from '../core/decide.js';
import type { GateDecision, Refutation, Settlement } from '../core/ledger.js';
import type { CheckResult, ProgressEvidence } from '../core/progress.js';
import type { NotBlockingBecause } from '../core/run-report.js';
import type { Budgets, Policy, ReportedFinding, Severity } from '../core/types.js';

/** One row of the runs list. */
export interface RunSummary {
  id: string;
  change: string;
  status: string;
  outcome: string | null;
  stopReason: string | null;
  /** Why a run did not complete, with its detail. */
  reason: string | null;
  detail: string | null;
  rounds: number;
  costUsd: number;
  base: string;
  head: string;
  createdAt: number;
  endedAt: number | null;
  /** Queued or running: the page keeps refreshing while any run is. */
  active: boolean;
}

export interface RunsResponse {
  /** The server's clock, so ages do not depend on the browser's. */
  now: number;
  runs: RunSummary[];
  /** Values present across all runs, for the filter menus. */
  facets: { statuses: string[]; outcomes: string[]; stopReasons: string[] };
}

export interface FindingView {
  id: string;
  round: number;
  reviewer: string;
  revision: string;
  /** Severity after gating. */
  severity: Severity;
  reported: ReportedFinding;
  gate: GateDecision;
  refutation: Refutation | null;
  dispute: { reason: string } | null;
  settlement: Settlement | null;
  blocking: boolean;
  because: NotBlockingBecause;
  /** Under repeat sampling: how many of the reviewer's samples found it. */
  reproduction?: { seen: number; of: number };
}

export interface AttemptView {
  stage: string;
  role: string;
  reviewer: string;
  attemptNo: number;
  class: string;
  detail: string | null;
}

export interface VerdictView {
  reviewer: string;
  verdict: 'pass' | 'findings';
  modelId: string | null;
  /** The chunks the diff was reviewed in (each its own call), and how many of them had findings. */
  parts?: { count: number; withFindings: number };
  /** Under repeat sampling: the most samples drawn on one of its prompts. */
  samples?: number;
}

export interface CoverageView {
  /** Files of the diff no ignore rule left out. */
  kept: number;
  /** Per reviewer, in configured order: how many of those it reviewed, and the first it did not. */
  reviewers: { reviewer: string; reviewed: number; missing: string[] }[];
  ignored: { path: string; rule: string }[];
  /** Findings on ignored paths, dropped with the rule that matched. */
  dropped: { reviewer: string; file: string; rule: string }[];
}

export interface RoundView {
  round: number;
  head: string;
  startedAt: number;
  /**
   * Each reviewer's verdict, in configured order; null while the review stage is
   * not complete. A chunked review's verdicts are one per reviewer here: findings
   * if any part had some, with the count of parts.
   */
  verdicts: VerdictView[] | null;
  /** What the review covered; null for a round recorded before coverage existed. */
  coverage: CoverageView | null;
  findings: FindingView[];
  refuter: string | null;
  decide: {
    blocking: number;
    openBlockers: OpenBlocker[];
    evidence: ProgressEvidence | null;
    progress: boolean | null;
    decision: RoundDecision;
  } | null;
  fix: {
    from: string;
    commit: string | null;
    disputes: { findingId: string; reason: string }[];
    unknownIds: string[];
  } | null;
  /** The checks run on the revision this round's fix made. */
  checks: CheckResult[] | null;
  /** Attempts that did not end `ok` (retries, failures, interrupted calls). */
  troubles: AttemptView[];
}

export interface RunDetail {
  now: number;
  run: RunSummary & {
    mergeBase: string;
    snapshotHead: string;
    configFrom: string;
    reviewers: string[];
    refuter: string | null;
    fixer: string | null;
    checkNames: string[];
    budgets: Budgets;
    policy: Policy;
    recordPath: string | null;
  };
  /** Checks on the snapshot head before any fix (round 0). */
  baselineChecks: CheckResult[] | null;
  /** The baseline's failing checks, run again at the merge base (null: none ran there). */
  baseChecks: { commit: string; results: CheckResult[] } | null;
  rounds: RoundView[];
  /** The escalation report of a run the stop rule ended. */
  escalation: { blockingCounts: number[]; openBlockers: string[] } | null;
  /** The service's part in the run; null where the ledger has no service (SQLite). */
  service?: RunServiceView | null;
}

export interface VerifyView {
  recordPath: string | null;
  ok: boolean;
  code: string;
  reason: string;
}

export interface DiffView {
  from: string;
  commit: string;
  text: string;
  truncated: boolean;
}

export interface CalibrationRun {
  id: string;
  change: string;
  createdAt: number;
  reviewers: ReviewerCalibration[];
}

export interface CalibrationView {
  /** Every run's round log analysed as one: the ledger across all runs. */
  overall: AnalyzeResult['reviewers'];
  /** Oldest first: the chart's x axis is the run index. */
  runs: CalibrationRun[];
}

export interface SettleRequest {
  by: string;
  decision: 'upheld' | 'overturned';
  note?: string | null;
}

/** One webhook delivery the service recorded, as the service page lists it. */
export interface DeliveryView {
  forge: string;
  deliveryId: string;
  event: string;
  repository: string;
  pr: number;
  head: string | null;
  baseBranch: string;
  sender: string | null;
  state: string;
  detail: string | null;
  /** The run it admitted (created or found). */
  runId: string | null;
  receivedAt: number;
  attempts: number;
}

/** The service page: deliveries, or why there are none to show. */
export type ServiceResponse =
  | { inUse: false; reason: string }
  | {
      inUse: true;
      now: number;
      deliveries: DeliveryView[];
      /** States present among the recent deliveries, for the filter menu. */
      states: string[];
    };

/** What the service did for one run: the pull request it was admitted for and the deliveries that asked. */
export interface RunServiceView {
  /** The pull request the run answers (its first admitting delivery's), and whether it was published there. */
  trigger: {
    forge: string;
    repository: string;
    pr: number;
    deliveryId: string;
    publishedAt: number | null;
    detail: string | null;
  } | null;
  deliveries: DeliveryView[];
}
