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
  /** A file could not be written for want of room or a failing device; the ledger is intact. */
  writeFailed: 6,
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
  write_failed: Exit.writeFailed,
};

export function exitCodeFor(err: unknown): number {
  if (err instanceof RevloopError) return byCode[err.code] ?? Exit.usage;
  return Exit.internal;
}
