/**
 * The service's part of the ledger: webhook deliveries, kept once each, and
 * the pull request a run was admitted for. A delivery is committed before the
 * sender is answered and admitted later by whichever serve process claims it,
 * so a restart loses nothing and a redelivery admits nothing twice.
 */
import type { RunRow } from '../core/ledger.js';

export const FORGE_NAMES = ['github', 'gitlab'] as const;
export type DeliveryForge = (typeof FORGE_NAMES)[number];

/** Where a delivery stands: admitted, or why not. */
export const DeliveryState = {
  /** Committed, not admitted yet: a serve process claims it. */
  pending: 'pending',
  /** Its revision has a run (created or existing). */
  admitted: 'admitted',
  /** A pull request closed: its queued runs were cancelled. */
  cancelled: 'cancelled',
  /** Nothing to admit (an empty diff, a head no longer open). */
  ignored: 'ignored',
  /** Admission refused it for good (a config error, an unknown ref); the detail says why. */
  failed: 'failed',
} as const;
export type DeliveryState = (typeof DeliveryState)[keyof typeof DeliveryState];

/** What a delivery asks: review a pull request's head, or cancel its queued work. */
export type DeliveryIntent = 'review' | 'close';

export interface NewDelivery {
  forge: DeliveryForge;
  /** The sender's id (X-GitHub-Delivery, Idempotency-Key), or `reconcile:…` for the reconciler's own. */
  deliveryId: string;
  /** sha256 of the raw body: two hooks sending the same bytes under two ids are one delivery. */
  bodyDigest: string;
  /** `pull_request/synchronize`, `merge_request/update`, `reconcile`. */
  event: string;
  intent: DeliveryIntent;
  /** GitHub owner/name; GitLab the project path. */
  repository: string;
  pr: number;
  /** The head the payload named (the forge's live head is what gets fetched and admitted). */
  head: string | null;
  /** The base branch's name. */
  baseBranch: string;
  sender: string | null;
}

export interface DeliveryRow extends NewDelivery {
  state: DeliveryState;
  detail: string | null;
  runId: string | null;
  receivedAt: number;
  attempts: number;
}

export interface DeliveryEnd {
  state: Exclude<DeliveryState, 'pending'>;
  runId: string | null;
  detail: string | null;
}

/** The pull request a run was admitted for: the worker that ends the run publishes it there. */
export interface RunTrigger {
  runId: string;
  forge: DeliveryForge;
  repository: string;
  pr: number;
  deliveryId: string;
  publishedAt: number | null;
  detail: string | null;
}

/** Which deliveries a reader wants (the dashboard's service page, a run's page). */
export interface DeliveryFilter {
  state?: DeliveryState | undefined;
  repository?: string | undefined;
  pr?: number | undefined;
  /** The run a delivery admitted. */
  runId?: string | undefined;
}

/**
 * What `/metrics` and `/readyz` read from the ledger at scrape time: each
 * part is one aggregate query whose answer is bounded by the number of
 * states, never by the number of rows it counts.
 */
export interface ServiceStats {
  /** The newest migration the ledger holds, and the newest this revloop knows. */
  schema: { applied: number; wanted: number };
  deliveries: { state: DeliveryState; count: number }[];
  runs: { status: string; outcome: string | null; count: number }[];
  queued: number;
  /** Ledger-clock age of the oldest queued run; null with none queued. */
  oldestQueuedMs: number | null;
  /** Cost spent by every run, and by runs created in the last 24 hours. */
  spentUsd: number;
  spentUsd24h: number;
}

export interface DeliveryLedger {
  /**
   * Insert-or-nothing on (forge, deliveryId) and on (forge, bodyDigest), committed when it
   * returns. `inserted` is false on a duplicate, and `delivery` is then the one kept first.
   */
  recordDelivery(d: NewDelivery): Promise<{ inserted: boolean; delivery: DeliveryRow }>;
  /**
   * Claims the oldest pending delivery nobody holds (or whose holder's claim lapsed, on the
   * store's clock) for `ttlMs`; null when there is none.
   */
  claimDelivery(ttlMs: number): Promise<DeliveryRow | null>;
  /** Gives a claimed delivery back, to be claimed again no sooner than `afterMs` from now. */
  retryDelivery(forge: DeliveryForge, deliveryId: string, afterMs: number, detail: string): Promise<void>;
  /**
   * Ends a pending delivery. Admitted with a run, the run's trigger (its pull request) is
   * recorded in the same transaction, insert-or-nothing: the first delivery that admitted
   * a run names it.
   */
  endDelivery(forge: DeliveryForge, deliveryId: string, end: DeliveryEnd): Promise<DeliveryRow>;
  getDelivery(forge: DeliveryForge, deliveryId: string): Promise<DeliveryRow | null>;
  /** Newest first; with a filter, only the deliveries matching every field it sets. */
  listDeliveries(limit: number, filter?: DeliveryFilter): Promise<DeliveryRow[]>;
  /** Ends every queued run of the change `aborted`/`superseded` with `detail`; returns them. */
  cancelQueued(changeKey: string, detail: string): Promise<RunRow[]>;
  triggerOf(runId: string): Promise<RunTrigger | null>;
  /**
   * Claims, for `ttlMs`, the oldest trigger of a run of `repo` (its identity) that has ended
   * and that nobody published or holds: the worker that claims it publishes it.
   */
  claimPublication(repo: string, ttlMs: number): Promise<RunTrigger | null>;
  /** The claimed trigger's publication is done (or refused for good), with what happened. */
  endPublication(runId: string, detail: string): Promise<void>;
  /** The ledger's schema version alone: one cheap read, for a readiness probe. */
  schemaVersion(): Promise<ServiceStats['schema']>;
  serviceStats(): Promise<ServiceStats>;
}
