/**
 * The decisions every Store implementation makes the same way, kept apart
 * from SQL so that memory, SQLite and PostgreSQL cannot drift.
 */
import { canonicalJson } from '../../core/canonical-json.js';
import type { Lease } from '../../core/ledger.js';
import { ROUND_STAGES } from '../../core/round-order.js';
import { isTerminal, type RunStatus } from '../../core/types.js';
import type { AdmitInput, AdmitResult, RunEnd } from '../../ports/store.js';
import { FencedOutError, LedgerConflictError, UnknownRunError } from '../errors.js';

/** An attempt ended (or ended by a verdict) that was never begun: a bug in the caller. */
export const attemptNeverBegun = (runId: string, callKey: string, attemptNo: number): LedgerConflictError =>
  new LedgerConflictError(`run ${runId}: attempt ${attemptNo} of ${callKey} was never begun`);

/** What the run being admitted is charged against the cost budget until it ends. */
export const admissionCost = (input: AdmitInput): number =>
  input.limits?.estimatedCostUsd ?? input.snapshot.budgets.costUsd;

/** Start of the cost window, or -Infinity when the budget has no window. */
export const costWindowStart = (input: AdmitInput, now: number): number =>
  input.limits?.costWindowSeconds === undefined
    ? Number.NEGATIVE_INFINITY
    : now - input.limits.costWindowSeconds * 1000;

/**
 * Invariant 3's limits, judged on what the ledger holds inside the admission's
 * transaction. `active` counts queued+running runs; `committedUsd` sums, over
 * runs created in the window, the budget of active runs and the spent cost of ended ones.
 */
export function limitVerdict(
  input: AdmitInput,
  usage: { active: number; committedUsd: number },
): Extract<AdmitResult, { kind: 'deferred' }> | null {
  const l = input.limits;
  if (!l) return null;
  if (l.maxActive !== undefined && usage.active >= l.maxActive)
    return {
      kind: 'deferred',
      limit: 'capacity',
      detail: `${usage.active} runs queued or running, capacity ${l.maxActive}`,
    };
  if (l.costBudgetUsd !== undefined) {
    const want = admissionCost(input);
    if (usage.committedUsd + want > l.costBudgetUsd + 1e-9) {
      const window = l.costWindowSeconds === undefined ? '' : ` in the last ${l.costWindowSeconds} s`;
      return {
        kind: 'deferred',
        limit: 'cost',
        detail: `$${usage.committedUsd.toFixed(2)} committed${window} + $${want.toFixed(2)} would exceed the budget $${l.costBudgetUsd.toFixed(2)}`,
      };
    }
  }
  return null;
}

/** Whether a limit check is needed at all (Postgres takes a shared lock instead of an exclusive one otherwise). */
export const hasLimits = (input: AdmitInput): boolean =>
  input.limits?.maxActive !== undefined || input.limits?.costBudgetUsd !== undefined;

/** Invariant 13 inside the write's transaction: the run exists, is not terminal, and its token is the lease's. */
export function checkFence(
  lease: Lease,
  run: { fencingToken: number; status: RunStatus } | null | undefined,
): void {
  if (!run) throw new UnknownRunError(lease.runId);
  if (run.fencingToken !== lease.token) throw new FencedOutError(lease.runId, lease.token, run.fencingToken);
  if (isTerminal(run.status))
    throw new FencedOutError(
      lease.runId,
      lease.token,
      run.fencingToken,
      `the run already ended ${run.status}`,
    );
}

/** Invariant 2: only `completed` carries an outcome and a stop reason; every other end carries a reason. */
export function checkRunEnd(runId: string, end: RunEnd): void {
  if (!isTerminal(end.status))
    throw new LedgerConflictError(`run ${runId}: ${end.status} is not an end`, { runId });
  if (end.status === 'completed') {
    if (end.outcome === null || end.stopReason === null)
      throw new LedgerConflictError(`run ${runId}: a completed run needs an outcome and a stop reason`, {
        runId,
      });
  } else if (end.outcome !== null || end.stopReason !== null) {
    throw new LedgerConflictError(`run ${runId}: a ${end.status} run carries no outcome`, { runId });
  }
}

/** Equal stage results, compared canonically (jsonb reorders keys). */
export const sameJson = (a: unknown, b: unknown): boolean => canonicalJson(a) === canonicalJson(b);

/** A stage's place in its round (core/round-order.ts) as SQL, for listing in that order. */
export const STAGE_RANK_SQL = `CASE stage ${ROUND_STAGES.map((s, i) => `WHEN '${s}' THEN ${i}`).join(' ')} END`;

/** JSON as the databases keep it: undefined dropped, a fresh copy. */
export const toJson = (v: unknown): string => JSON.stringify(v ?? null);
export const copyJson = <T>(v: T): T => (v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T));
