/**
 * The store layer's named errors. Storage faults carry the codes that
 * src/cli/exit-codes.ts maps to exit 5; contract errors (unknown finding,
 * already settled, conflicting stage) are usage-class faults of the caller.
 */
import { RevloopError } from '../core/errors.js';

/** Invariant 13: a write carried a lease whose fencing token is no longer the run's. */
export class FencedOutError extends RevloopError {
  constructor(
    readonly runId: string,
    readonly leaseToken: number,
    readonly currentToken: number | null,
    why = 'the lease was taken over',
  ) {
    super(
      'fenced_out',
      `run ${runId}: write refused, ${why} (lease token ${leaseToken}, run token ${currentToken ?? 'none'})`,
      { runId, leaseToken, currentToken },
    );
  }
}

/** No run has this id, or no single run starts with this prefix (the one error for both). */
export class UnknownRunError extends RevloopError {
  constructor(readonly runId: string) {
    super('unknown_run', `no run matches "${runId}" in the ledger`, { runId });
  }
}

export class UnknownFindingError extends RevloopError {
  constructor(readonly findingId: string) {
    super('unknown_finding', `no finding matches "${findingId}" in the ledger`, { findingId });
  }
}

export class AlreadySettledError extends RevloopError {
  constructor(
    readonly findingId: string,
    readonly by: string,
  ) {
    super('already_settled', `finding ${findingId} was already settled by ${by}`, { findingId, by });
  }
}

/** A stage completed twice with different results: resume may replay a stage, never change it. */
export class StageConflictError extends RevloopError {
  constructor(runId: string, round: number, stage: string) {
    super(
      'stage_conflict',
      `run ${runId}: round ${round} stage ${stage} is already completed with another result`,
      {
        runId,
        round,
        stage,
      },
    );
  }
}

/** A write that contradicts what the ledger holds (another head for a begun round, an attempt never begun, a bad run end). */
export class LedgerConflictError extends RevloopError {
  constructor(message: string, data: Record<string, unknown> = {}) {
    super('ledger_conflict', message, data);
  }
}

export class StoreLockedError extends RevloopError {
  constructor(where: string, cause?: string) {
    super('store_locked', `the ledger ${where} is locked by another process (busy timeout passed)`, {
      where,
      cause,
    });
  }
}

export class StoreReadonlyError extends RevloopError {
  constructor(where: string, cause?: string) {
    super('store_readonly', `the ledger ${where} is read-only: ${cause ?? 'cannot write'}`, { where, cause });
  }
}

export class StoreFullError extends RevloopError {
  constructor(where: string, cause?: string) {
    super('store_full', `the ledger ${where} is full (no space left): its last write was rolled back`, {
      where,
      cause,
    });
  }
}

export class StoreCorruptError extends RevloopError {
  constructor(where: string, cause?: string) {
    super(
      'store_corrupt',
      `the ledger ${where} is corrupt or not a ledger (${cause ?? 'integrity check failed'}); refusing to continue`,
      {
        where,
        cause,
      },
    );
  }
}

export class StoreUnavailableError extends RevloopError {
  constructor(where: string, cause?: string) {
    super('store_unavailable', `the ledger ${where} is unavailable: ${cause ?? 'cannot connect'}`, {
      where,
      cause,
    });
  }
}
