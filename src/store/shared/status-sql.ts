/**
 * The SQL image of core's transition table: every status list a store's SQL
 * names is built here from `src/core/run-state.ts`, never typed in a query.
 * The values are core's own constants (no user input), so inlining is safe.
 */
import { ACTIVE_STATUSES, KEY_HOLDING, statusesInto } from '../../core/run-state.js';
import { RunStatus } from '../../core/types.js';

/** `status IN ('a','b')` over the given statuses (an empty set matches nothing). */
export const statusIn = (statuses: readonly RunStatus[], column = 'status'): string =>
  statuses.length === 0 ? 'FALSE' : `${column} IN (${statuses.map((s) => `'${s}'`).join(',')})`;

/** Runs holding their admission key (invariant 3); the partial unique index's predicate. */
export const HELD_SQL = statusIn(KEY_HOLDING);
/** Runs queued or being driven: what capacity counts and what may still end. */
export const ACTIVE_SQL = statusIn(ACTIVE_STATUSES);
/** The guard of an UPDATE that sets `to`: only rows the table lets move there. */
export const canMoveInto = (to: RunStatus): string => statusIn(statusesInto(to));

/**
 * core's `isClaimable` as SQL, with `now` and `repo` the query's placeholders
 * (a null repo matches any repository): a claim's WHERE clause.
 */
export const claimableSql = (now: string, repo: string): string =>
  `(${statusIn([RunStatus.queued])}
    OR (${statusIn([RunStatus.running])} AND (lease_owner IS NULL OR lease_expires_at <= ${now})))
  AND (${repo} IS NULL OR repo = ${repo})`;
