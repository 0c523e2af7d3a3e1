import { RevloopError } from '../core/errors.js';

/** Exit codes shared by every command (README, "Exit codes"). */
export const Exit = {
  ok: 0,
  /** review: findings; verify: policy refused; replay: diverged. */
  findings: 1,
  usage: 2,
  /** review: run not completed; verify: mismatch with the checkout. */
  notCompleted: 3,
  /** verify: bad signature, unknown key or malformed record. */
  badRecord: 4,
  /** The ledger cannot be used: locked, read-only, full or corrupt. */
  store: 5,
  /** review/enqueue: nothing to review (the head's diff from the merge base is empty). */
  nothingToReview: 6,
  /** review --apply: the run ended clear with fixes, but the branch did not get them (the message says why). */
  notApplied: 7,
  /** publish: the forge refused before anything was written (read-only token, unknown PR, 404/422). */
  publishedNothing: 8,
  /** publish: the forge refused after some writes; publishing again completes it. */
  publishedPartly: 9,
  /** A file could not be written for want of room or a failing device; the ledger is intact. */
  writeFailed: 10,
  /** eval: some cases could not run or did not complete; the report lists them and scores only the rest. */
  evalIncomplete: 11,
  /** A bug: an error revloop did not expect. */
  internal: 70,
} as const;

/** Error codes (RevloopError.code) and the exit code each maps to; anything unlisted is usage (2). */
const byCode: Record<string, number> = {
  store_locked: Exit.store,
  store_readonly: Exit.store,
  store_full: Exit.store,
  store_corrupt: Exit.store,
  store_unavailable: Exit.store,
  fenced_out: Exit.store,
  nothing_to_review: Exit.nothingToReview,
  write_failed: Exit.writeFailed,
};

export function exitCodeFor(err: unknown): number {
  if (err instanceof RevloopError) return byCode[err.code] ?? Exit.usage;
  return Exit.internal;
}
