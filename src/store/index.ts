/**
 * Decisions the Store port leaves open, taken the same way by every
 * implementation (the contract suite in test/store/contract.ts holds them):
 * - completeStage on a stage already completed with an equal result (canonical
 *   JSON) is a no-op, side rows included, so resume can replay it; a different
 *   result throws StageConflictError ('stage_conflict').
 * - beginRound again with the same head is a no-op; another head throws
 *   LedgerConflictError. beginAttempt of an existing (callKey, attemptNo) is a
 *   no-op; endAttempt of one never begun throws LedgerConflictError.
 * - releaseLease with a stale token is a no-op (safe in `finally`).
 * - findRun/getFinding: an exact id wins; else a prefix matching exactly one
 *   row; an ambiguous or empty prefix returns null.
 * - listRuns is newest first; other lists are in insertion (or round, stage) order.
 * - Admission cost: queued/running runs created in the window count their
 *   budget (limits.estimatedCostUsd ?? snapshot.budgets.costUsd), ended ones
 *   what they spent; no window means all time.
 * - Fencing is judged on the token (and a terminal run), not on expiry: an
 *   expired lease may still write until someone takes the run over.
 *
 * The composition root's way to a ledger: a URL picks the implementation.
 * Drivers are imported lazily, so a command that never opens a ledger
 * (`verify`) never loads SQLite, and SQLite users never load pg.
 */
import { statSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { UsageError } from '../core/errors.js';
import type { Store } from '../ports/store.js';

export interface OpenStoreOptions {
  /** Base for a relative `sqlite:` path (default: the process's working directory). */
  repoRoot?: string | undefined;
  /** The SQLite and memory stores' clock; PostgreSQL uses the database clock. */
  now?: (() => number) | undefined;
  /** SQLite: how long a write waits for another process's lock (default 5000 ms). */
  busyTimeoutMs?: number | undefined;
  /** For commands that only read (status, export, replay): an existing SQLite ledger is opened read-only. */
  readonly?: boolean | undefined;
  /**
   * A URL a user gave: a SQLite file in a directory that does not exist is
   * refused (a typo would otherwise grow a new, empty ledger somewhere),
   * except revloop's own state directory `<repoRoot>/.revloop`.
   */
  userUrl?: boolean | undefined;
}

export const DEFAULT_STORE_URL = 'sqlite:.revloop/ledger.db';

/**
 * Opens the ledger named by `url`: `sqlite:PATH` (relative to repoRoot; the
 * directory is created), `postgres://…` / `postgresql://…`, or `memory:`.
 * Storage faults surface as store_* errors (src/store/errors.ts).
 */
export async function openStore(url: string, opts: OpenStoreOptions = {}): Promise<Store> {
  if (url === 'memory:' || url.startsWith('memory:')) {
    const { MemoryStore } = await import('./memory.js');
    return new MemoryStore({ now: opts.now ?? Date.now });
  }
  if (url.startsWith('sqlite:')) {
    const path = sqlitePath(url, opts);
    const { openSqliteStore } = await import('./sqlite/store.js');
    return openSqliteStore(path, {
      now: opts.now,
      busyTimeoutMs: opts.busyTimeoutMs,
      readonly: opts.readonly,
    });
  }
  if (url.startsWith('postgres://') || url.startsWith('postgresql://')) {
    const { openPostgresStore } = await import('./postgres/store.js');
    return openPostgresStore(url);
  }
  throw new UsageError(
    `unknown store URL scheme: ${url.replace(/:\/\/[^@/]*@/, '://***@')} (use sqlite:PATH, postgres://… or memory:)`,
  );
}

/** The ledger file a `sqlite:` URL names; a URL that names none is a usage error, said as such. */
function sqlitePath(url: string, opts: OpenStoreOptions): string {
  const rel = url.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
  if (!rel) throw new UsageError(`the ledger URL "${url}" names no file (e.g. ${DEFAULT_STORE_URL})`);
  const root = opts.repoRoot ?? process.cwd();
  const path = isAbsolute(rel) ? rel : join(root, rel);
  const kind = (p: string) => {
    try {
      return statSync(p).isDirectory() ? 'dir' : 'file';
    } catch {
      return 'missing';
    }
  };
  if (rel.endsWith('/') || kind(path) === 'dir')
    throw new UsageError(`the ledger URL "${url}" names a directory (${path}), not a ledger file`);
  const dir = dirname(path);
  if (opts.userUrl && kind(dir) !== 'dir' && dir !== join(root, '.revloop'))
    throw new UsageError(
      `the ledger URL "${url}": directory ${dir} does not exist (create it first, or name a file in an existing directory)`,
    );
  return path;
}
