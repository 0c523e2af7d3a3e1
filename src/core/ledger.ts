/**
 * Rows of the ledger as plain data: what the Store port returns and what the
 * record, reports, replay and dashboard read. Times are epoch milliseconds.
 */
import type {
  CallClass,
  EndReason,
  Outcome,
  ReportedFinding,
  Reproduction,
  Role,
  RunStatus,
  Severity,
  Snapshot,
  Stage,
  StopReason,
} from './types.js';

/** Who asked for a revision to be reviewed again, and why (recorded on the run). */
export interface Rerun {
  ordinal: number;
  by: string;
  reason: string;
}

export interface LeaseOwner {
  /** Unique per process (host:pid:random). */
  id: string;
  host: string;
  pid: number;
}

export interface RunRow {
  id: string;
  admissionKey: string;
  changeKey: string;
  repo: string;
  snapshotKey: string;
  snapshot: Snapshot;
  status: RunStatus;
  outcome: Outcome | null;
  stopReason: StopReason | null;
  /** Why a run did not complete; null when completed. */
  reason: EndReason | null;
  detail: string | null;
  /**
   * A review of the revision asked for again on purpose (`review --rerun`): its
   * ordinal (1 for the first rerun), who asked and why. Null for the first run.
   */
  rerun: Rerun | null;
  /** The revision currently under review: the snapshot head, then each fix commit. */
  head: string;
  roundsDone: number;
  costUsd: number;
  fencingToken: number;
  leaseOwner: LeaseOwner | null;
  leaseExpiresAt: number | null;
  recordPath: string | null;
  createdAt: number;
  updatedAt: number;
  endedAt: number | null;
}

export interface Lease {
  runId: string;
  token: number;
  owner: LeaseOwner;
  expiresAt: number;
}

export interface RoundRow {
  runId: string;
  round: number;
  /** Head commit of the revision this round reviewed. */
  head: string;
  startedAt: number;
}

/**
 * An eval judge's decision on one (finding, known defect) pair of a case's
 * run, recorded once under its own call key with the prompt digest, so an
 * eval on a kept ledger replays without calling the judge again. It belongs
 * to an ended run and no worker holds it: not fenced (like a settlement).
 */
export interface JudgementRow {
  callKey: string;
  /** The case's run whose finding was judged. */
  runId: string;
  caseId: string;
  /** The judge's configured name. */
  judge: string;
  /** The finding's index in the case's round-1 findings, and the defect's in the case. */
  finding: number;
  defect: number;
  promptDigest: string;
  modelId: string | null;
  reply: { matches: boolean; reason: string };
  costUsd: number;
  recordedAt: number;
}

/** Attempt state: `started` until it ends; a `started` attempt found on resume is `unknown`. */
export type AttemptClass = CallClass | 'started';

export interface AttemptRow {
  runId: string;
  callKey: string;
  attemptNo: number;
  round: number;
  stage: Stage;
  role: Role;
  reviewer: string;
  class: AttemptClass;
  detail: string | null;
  startedAt: number;
  endedAt: number | null;
  /** Whether the controller ran the call's process (if any) under the confined runner. */
  confined: boolean;
}

/** What a call's attempt is started with; `confined` absent: it was not. */
export type AttemptStart = Omit<
  AttemptRow,
  'runId' | 'class' | 'detail' | 'startedAt' | 'endedAt' | 'confined'
> & {
  confined?: boolean | undefined;
};

export type GateDecision =
  | { kind: 'kept' }
  /** Invariant 9: no concrete scenario and no violated clause. */
  | { kind: 'demoted'; rule: 'no_scenario'; from: Severity }
  /** Invariant 11: re-raise on a line unchanged since this reviewer passed. */
  | { kind: 'demoted'; rule: 'scope_lock'; from: Severity; passedAt: string }
  /** Repeat sampling: a MODERATE found by fewer samples than `block` (core/samples.ts). */
  | { kind: 'demoted'; rule: 'unreproduced'; from: Severity; seen: number; of: number };

/** Where a refutation answered from memory was first made: the refuter's own call on that finding. */
export interface RefutationOrigin {
  runId: string;
  round: number;
  findingId: string;
  callKey: string;
}

export interface Refutation {
  decision: 'upheld' | 'refuted';
  by: string;
  reason: string;
  /** The refuter call that decided; for a remembered one, the original call (of another round or run). */
  callKey: string;
  /**
   * Set on a refutation answered from memory (core/refute-memory.ts): the
   * first-hand decision it repeats. Never set on a source of memory, so a
   * remembered refutation never chains into wider coverage.
   */
  origin?: RefutationOrigin | undefined;
}

export interface Settlement {
  by: string;
  decision: 'upheld' | 'overturned';
  note: string | null;
  at: number;
  /**
   * Set on a settlement carried over from an earlier run: the finding the
   * person actually judged (by, note and at are that decision's). Always the
   * first decision, so a chain of runs never nests "carried over from".
   */
  origin?: { findingId: string; runId: string } | undefined;
}

export interface FindingRow {
  /** Stable id: derived from the call key and index, so a replayed call yields the same ids. */
  id: string;
  runId: string;
  round: number;
  reviewer: string;
  revision: string;
  callKey: string;
  index: number;
  reported: ReportedFinding;
  /** Severity after gating. */
  severity: Severity;
  gate: GateDecision;
  refutation: Refutation | null;
  /** Set when the fixer disputes the finding instead of fixing it. */
  dispute: { reason: string } | null;
  settlement: Settlement | null;
  /**
   * Invariant 16: digest of what the finding judged at its revision (the file
   * and the text of its lines; for a protected path, the path's blob), or null
   * when unknown (rows recorded before it existed). A settlement carries over
   * only onto a finding with the same digest.
   */
  content?: string | null | undefined;
  /**
   * Under repeat sampling (`review.samples`), in how many of the reviewer's
   * samples on this prompt the finding was found; absent when one was drawn.
   * The row is the earliest sample's finding of its matched group.
   */
  reproduction?: Reproduction | undefined;
}
