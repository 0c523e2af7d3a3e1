/**
 * The ledger port. Every write that belongs to a run carries the run's lease;
 * the store refuses it in the same transaction when the lease's fencing token
 * is no longer the run's (invariant 13) by throwing `FencedOutError`.
 * Implementations: SQLite (embedded default), PostgreSQL (many workers), memory (tests).
 */
import type {
  AttemptClass,
  AttemptRow,
  AttemptStart,
  FindingRow,
  JudgementRow,
  Lease,
  LeaseOwner,
  RoundRow,
  RunRow,
  Settlement,
} from '../core/ledger.js';
import type { NewVerdict, StageCompletion, StageRow, VerdictRow } from '../core/stage-results.js';
import type { EndReason, Outcome, RunStatus, Snapshot, StopReason } from '../core/types.js';
import type { DeliveryLedger } from './deliveries.js';

export interface AdmissionLimits {
  /** Max runs queued or running at once. */
  maxActive?: number | undefined;
  /** Cost budget across runs created within the window. */
  costBudgetUsd?: number | undefined;
  costWindowSeconds?: number | undefined;
  /**
   * Count only the runs of the repository being admitted into (AdmitInput.repo),
   * so that services sharing one ledger each keep their own limits.
   */
  perRepository?: boolean | undefined;
  /** Estimated cost of the run being admitted (its budget by default). */
  estimatedCostUsd?: number | undefined;
}

export interface AdmitInput {
  runId: string;
  /** The revision's key; each rerun is admitted under its own (core/keys.ts rerunAdmissionKey). */
  admissionKey: string;
  /**
   * Review the revision again (who asked, why): a new run unless its newest
   * run is still queued or running, which then answers. Without it the newest
   * run of the revision answers, as it always did.
   */
  rerun?: RerunRequest | undefined;
  changeKey: string;
  repo: string;
  snapshotKey: string;
  snapshot: Snapshot;
  limits?: AdmissionLimits | undefined;
}

export interface RerunRequest {
  by: string;
  reason: string;
}

/**
 * Invariant 3: one admission key has at most one run that is queued, running
 * or completed. A key whose run completed is answered with that run; a key
 * whose runs all failed or aborted is admitted afresh. A revision asked to be
 * reviewed again has one such key per rerun, and its newest rerun answers.
 */
export type AdmitResult =
  | { kind: 'created'; run: RunRow }
  | { kind: 'existing'; run: RunRow }
  | { kind: 'deferred'; limit: 'capacity' | 'cost'; detail: string };

export interface RunFilter {
  status?: RunStatus[] | undefined;
  changeKey?: string | undefined;
  admissionKey?: string | undefined;
  limit?: number | undefined;
}

export interface NewFinding extends Omit<FindingRow, 'refutation' | 'dispute' | 'settlement'> {}

export type { StageCompletion };

export interface RunEnd {
  status: Exclude<RunStatus, 'queued' | 'running'>;
  outcome: Outcome | null;
  stopReason: StopReason | null;
  reason: EndReason | null;
  detail: string | null;
}

/**
 * The store's lifecycle: which adapter it is, and closing it (each adapter
 * migrates its schema when it is opened, before any role below is used).
 */
export interface StoreLifecycle {
  readonly kind: 'sqlite' | 'postgres' | 'memory';
  close(): Promise<void>;
}

/**
 * The webhook service's deliveries and the pull requests runs were admitted
 * for (ports/deliveries.ts). Changes when the service's bookkeeping changes.
 */
export interface ServiceLedger {
  readonly deliveries: DeliveryLedger;
}

/**
 * Which run is driven, and by whom: admission (invariant 3), atomic with the
 * limits it checks, and leases (invariant 13), whose expiry is judged on the
 * store's clock. Changes when scheduling or the fencing rule changes.
 */
export interface RunQueue {
  admit(input: AdmitInput): Promise<AdmitResult>;
  /**
   * Takes the run's lease when it is free or expired, or, when `ifToken` is
   * given, whenever the current token still equals it (the caller proved the
   * owner dead). Every success increments the fencing token. Returns null when
   * another live owner holds it or the run is terminal.
   */
  acquireLease(runId: string, owner: LeaseOwner, ttlMs: number, ifToken?: number): Promise<Lease | null>;
  /**
   * Claims the oldest queued run, or a running one whose lease expired (SKIP
   * LOCKED on Postgres); with `repo`, only runs of that repository identity
   * (a worker can drive only runs whose commits its checkout has).
   */
  claimNext(owner: LeaseOwner, ttlMs: number, repo?: string): Promise<Lease | null>;
  /**
   * Whether a run `claimNext` could claim exists, locked or not. On Postgres a
   * claim skips a row another transaction holds (a sibling's claim under way,
   * or a frozen owner's write left open), so an empty claim alone does not
   * mean the queue is drained.
   */
  hasClaimable(repo?: string): Promise<boolean>;
  heartbeat(lease: Lease, ttlMs: number): Promise<Lease>;
  releaseLease(lease: Lease): Promise<void>;
}

/**
 * The run's progress through its rounds: fenced writes of the worker that
 * holds the lease, and a named person's settlement of a finding. Changes when
 * the round or its stages change.
 */
export interface RunLedger {
  beginRound(lease: Lease, round: number, head: string): Promise<void>;
  /**
   * Invariant 5: the stage result, its completion mark and its side rows in one
   * transaction. Returns the stage's row as recorded (the earlier one when this
   * completion repeats it), so the caller need not read it back.
   */
  completeStage(lease: Lease, c: StageCompletion): Promise<StageRow>;
  /** Ends the run and releases its lease, in one transaction. */
  finishRun(lease: Lease, end: RunEnd): Promise<RunRow>;
  /** Settlement by a named person: not fenced, it does not belong to a worker. */
  settle(findingId: string, s: Settlement): Promise<FindingRow>;
}

/**
 * Every agent call of a run and what it cost: attempts, verdicts (each call
 * key recorded once, invariant 6) and the spend of calls that gave none
 * (invariant 12). Fenced. Changes when the call protocol changes.
 */
export interface VerdictLog {
  beginAttempt(lease: Lease, a: AttemptStart): Promise<void>;
  /**
   * `spentUsd`: what a call that gave no verdict still cost (a reply that was
   * paid for, then rejected), added to the run's cost in the same transaction:
   * invariant 12 records every cent, also on a run that fails.
   */
  endAttempt(
    lease: Lease,
    callKey: string,
    attemptNo: number,
    cls: AttemptClass,
    detail: string | null,
    spentUsd?: number,
  ): Promise<void>;
  /** Marks every `started` attempt of the run `unknown` (resume after a crash). Returns how many. */
  markInterruptedAttempts(lease: Lease): Promise<number>;
  /**
   * Invariant 6: insert-or-nothing on the call key (a unique constraint).
   * `inserted` is false on a duplicate delivery, and `verdict` is then the one recorded first.
   * With `endsAttempt`, that attempt of the call key is ended `ok` in the same
   * transaction (LedgerConflictError, and nothing recorded, if it was never begun),
   * with `attemptDetail` as its detail (how the reply was asked for, the tokens it used).
   */
  recordVerdict(
    lease: Lease,
    v: NewVerdict,
    endsAttempt?: number,
    attemptDetail?: string | null,
  ): Promise<{ inserted: boolean; verdict: VerdictRow }>;
  /**
   * recordVerdict for each item, all in one transaction (one commit, one fsync):
   * every item is recorded or, on any fault (a stale lease, an attempt never
   * begun), none is. Results in the order given. For calls that finished
   * together, whose verdicts nothing has used yet (a chunked review round).
   */
  recordVerdicts(lease: Lease, items: readonly VerdictToRecord[]): Promise<RecordedVerdict[]>;
}

/** An eval judge's decisions about a run: the judge's own call log. Changes when eval scoring changes. */
export interface JudgementLog {
  /** Insert-or-nothing on its call key (invariant 6); `judgement` is the first recorded. */
  recordJudgement(
    j: Omit<JudgementRow, 'recordedAt'>,
  ): Promise<{ inserted: boolean; judgement: JudgementRow }>;
  listJudgements(runId: string): Promise<JudgementRow[]>;
}

/**
 * What another machine needs of a run: its fix commits and its signed record
 * (docs/architecture.md). Changes when how a run's outputs travel changes.
 */
export interface RunArtifacts {
  /** Records where the signed record of a finished run lies. */
  setRecordPath(runId: string, path: string): Promise<void>;
  /** Keeps the git bundle that yields fix commit `commit` (fenced); insert-or-nothing on (run, commit). */
  putFixBundle(lease: Lease, commit: string, bundle: Buffer): Promise<void>;
  /** The bundle kept for a fix commit of the run, or null. */
  getFixBundle(runId: string, commit: string): Promise<Buffer | null>;
  /**
   * Keeps a completed run's signed envelope, insert-or-nothing: returns the
   * envelope the ledger holds (the first one kept, when two writers raced).
   */
  putRecordEnvelope(runId: string, envelope: string): Promise<string>;
  getRecordEnvelope(runId: string): Promise<string | null>;
  /** Completed runs of `repo` whose signed envelope the ledger lacks, oldest first, at most `limit`. */
  runsWithoutRecord(repo: string, limit: number): Promise<RunRow[]>;
}

/**
 * Reads of the ledger: what status, the dashboard, exports, replay and the
 * record read. Changes when a reader needs a new view.
 */
export interface LedgerQueries {
  getRun(id: string): Promise<RunRow | null>;
  /** A unique run whose id starts with the prefix, or null. */
  findRun(idOrPrefix: string): Promise<RunRow | null>;
  listRuns(filter?: RunFilter): Promise<RunRow[]>;
  listRounds(runId: string): Promise<RoundRow[]>;
  listStages(runId: string): Promise<StageRow[]>;
  listVerdicts(runId: string): Promise<VerdictRow[]>;
  /** Verdicts of every run of the change (scope lock across runs). */
  listVerdictsForChange(changeKey: string): Promise<VerdictRow[]>;
  /**
   * The first verdict recorded under `reuseKey` (core/keys.ts) by a run of
   * `repo`, or null: a call with the same complete input reuses it. Another
   * repository's verdicts are never returned, whatever their key.
   */
  reusableVerdict(repo: string, reuseKey: string): Promise<VerdictRow | null>;
  listAttempts(runId: string): Promise<AttemptRow[]>;
  listFindings(runId: string): Promise<FindingRow[]>;
  getFinding(idOrPrefix: string): Promise<FindingRow | null>;
}

/**
 * The whole ledger, as each adapter implements it; a consumer takes only the
 * roles it uses.
 */
export type Store = StoreLifecycle &
  RunQueue &
  ServiceLedger &
  RunLedger &
  VerdictLog &
  JudgementLog &
  RunArtifacts &
  LedgerQueries;

/** One verdict of a batch (VerdictLog.recordVerdicts): recordVerdict's arguments. */
export interface VerdictToRecord {
  verdict: NewVerdict;
  endsAttempt?: number | undefined;
  attemptDetail?: string | null | undefined;
}

export interface RecordedVerdict {
  inserted: boolean;
  verdict: VerdictRow;
}
