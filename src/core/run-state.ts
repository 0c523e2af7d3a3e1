/**
 * The run state machine (invariant 2): status and outcome kept apart. Every
 * transition goes through one function that checks its precondition.
 */
import { RevloopError } from './errors.js';
import type { EndReason, Outcome, StopReason } from './types.js';
import { isTerminal, RunStatus } from './types.js';

/**
 * The one transition table. Stores apply it inside their transactions
 * (`assertTransition`) and build their SQL status lists from it
 * (`statusesInto`, `ACTIVE_STATUSES`), so no status set is typed twice.
 */
export const RUN_TRANSITIONS: Readonly<Record<RunStatus, readonly RunStatus[]>> = {
  queued: ['running', 'aborted', 'unknown', 'failed'],
  running: ['running', 'completed', 'failed', 'aborted', 'timed_out', 'unknown'],
  completed: [],
  failed: [],
  aborted: [],
  timed_out: [],
  unknown: [],
};

/** A caller asked for a move the table forbids: a bug in the caller, never a user's input. */
export class IllegalTransitionError extends RevloopError {
  constructor(
    readonly from: RunStatus,
    readonly to: RunStatus,
    runId?: string,
  ) {
    super('illegal_transition', `${runId ? `run ${runId}: ` : ''}illegal run transition ${from} -> ${to}`, {
      from,
      to,
      runId,
    });
  }
}

export function assertTransition(from: RunStatus, to: RunStatus, runId?: string): void {
  if (!RUN_TRANSITIONS[from].includes(to)) throw new IllegalTransitionError(from, to, runId);
}

/** The statuses a run may move to `to` from (the SQL guard of an UPDATE that sets `to`). */
export const statusesInto = (to: RunStatus): RunStatus[] =>
  Object.values(RunStatus).filter((from) => RUN_TRANSITIONS[from].includes(to));

/** Statuses with a way out: a run in one is queued or being driven (counted against capacity). */
export const ACTIVE_STATUSES: readonly RunStatus[] = Object.values(RunStatus).filter(
  (s) => RUN_TRANSITIONS[s].length > 0,
);

/**
 * Statuses that hold an admission key (invariant 3): every active one, and
 * `completed`, whose run answers the key for good. The partial unique index
 * `runs_admission_key_held` (migration 001) covers exactly these.
 */
export const KEY_HOLDING: readonly RunStatus[] = [...ACTIVE_STATUSES, 'completed'];

/**
 * Whether a claim may take the run at `now`: queued, or running with no live
 * lease (its owner let it go, or the lease lapsed: the owner is presumed
 * dead and whoever claims next takes it over, fenced by a new token).
 */
export const isClaimable = (
  run: { status: RunStatus; leaseOwner: unknown; leaseExpiresAt: number | null },
  now: number,
): boolean =>
  run.status === RunStatus.queued ||
  (run.status === RunStatus.running && (run.leaseOwner === null || (run.leaseExpiresAt ?? 0) <= now));

export type TerminalEnd =
  | { status: 'completed'; outcome: Outcome; stopReason: StopReason; reason: null; detail: string | null }
  | {
      status: Exclude<RunStatus, 'queued' | 'running' | 'completed'>;
      outcome: null;
      stopReason: null;
      reason: EndReason;
      detail: string | null;
    };

/** Only `completed` carries an outcome and a stop reason. */
export const completedEnd = (
  outcome: Outcome,
  stopReason: StopReason,
  detail: string | null = null,
): TerminalEnd => {
  if ((outcome === 'clear') !== (stopReason === 'clear')) {
    throw new Error(`outcome ${outcome} cannot stop for ${stopReason}`);
  }
  return { status: 'completed', outcome, stopReason, reason: null, detail };
};

export const unfinishedEnd = (
  status: Exclude<RunStatus, 'queued' | 'running' | 'completed'>,
  reason: EndReason,
  detail: string | null = null,
): TerminalEnd => ({ status, outcome: null, stopReason: null, reason, detail });

export { isTerminal };
