/**
 * Per-repository bare mirrors that the service's workers on one machine
 * share, under `${XDG_CACHE_HOME:-$HOME/.cache}/revloop/mirrors/`. A fetch
 * holds the mirror's lock (a kernel lock that dies with its holder, as the
 * pool's lanes use), so concurrent fetches of one repository queue instead
 * of racing on its refs. Each use writes the mirror's last-use time; after a
 * fetch, mirrors of other repositories are removed, least recently used
 * first, until all of them fit the byte bound, skipping any whose lock is
 * held; `revloop gc` removes mirrors unused for longer than the idle bound.
 */
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { RevloopError, UsageError } from '../core/errors.js';
import { type FetchCredential, mirrorGit } from '../git/mirror.js';
import type { GitOptions } from '../git/run.js';
import { type LaneLock, tryLaneLock } from '../loop/checkout/pool/lane-lock.js';
import { cacheRoot } from '../loop/checkout/pool/location.js';

/** Mirrors unused for longer than this are removed by `revloop gc`. */
export const MIRROR_MAX_IDLE_MS = 14 * 86_400_000;
/** All mirrors together stay under this many bytes by default (eviction after each fetch). */
export const MIRROR_MAX_BYTES = 20 * 1024 ** 3;

const LAST_USE = 'revloop-last-use';

export const mirrorsDir = (env: NodeJS.ProcessEnv): string => join(cacheRoot(env), 'mirrors');

export interface MirrorOptions {
  /** Where the mirrors live (mirrorsDir by default). */
  root: string;
  /** Bytes all mirrors together may hold after a fetch. */
  maxBytes?: number;
  /** How long a fetch waits for another process's fetch of the same repository. */
  lockWaitMs?: number;
  git?: GitOptions;
}

export interface MirrorRequest {
  /** The repository's HTTPS clone URL, without credentials (it is the runs' repository identity). */
  url: string;
  /** Refs to fetch besides the branches, e.g. `refs/pull/7/head`. */
  refs?: readonly string[];
  credential?: FetchCredential | null;
  /** The time of this use (ms): what the idle and eviction bounds judge by. */
  now: number;
}

export interface Synced {
  dir: string;
  /** Mirrors of other repositories removed to keep within the byte bound. */
  evicted: string[];
}

/** The mirror's directory: a readable name for people and a digest of the URL for uniqueness. */
export function mirrorPath(root: string, url: string): string {
  const name = url
    .replace(/^[a-z]+:\/\//i, '')
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .slice(-60);
  const digest = createHash('sha256').update(url).digest('hex').slice(0, 12);
  return join(root, `${name}-${digest}.git`);
}

/** A clone URL that could carry a secret or reach outside the forge is refused before git sees it. */
function checkUrl(url: string): void {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new UsageError(`mirror: ${JSON.stringify(url)} is not a URL`);
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:')
    throw new UsageError(`mirror: ${u.protocol} URLs are not fetched (https only)`);
  if (u.username || u.password)
    throw new UsageError('mirror: the clone URL carries a credential; pass it as the credential instead');
  if (u.search || u.hash) throw new UsageError('mirror: the clone URL has a query or fragment');
}

/** Another process's fetch of the repository held its mirror for longer than the caller waits. */
export class MirrorBusyError extends RevloopError {
  constructor(lockPath: string, waitMs: number) {
    super(
      'git',
      `mirror: another fetch held ${lockPath} for over ${(waitMs / 1000).toFixed(waitMs < 1000 ? 1 : 0)}s`,
      {
        lockPath,
        waitMs,
      },
    );
  }
}

/** Waits for the lock at `path`, polling; a holder that dies frees it at once (kernel lock). */
async function lockWithin(path: string, waitMs: number): Promise<LaneLock> {
  const deadline = Date.now() + waitMs;
  for (let delay = 20; ; delay = Math.min(delay * 2, 500)) {
    const lock = tryLaneLock(path);
    if (lock) return lock;
    if (Date.now() >= deadline) throw new MirrorBusyError(path, waitMs);
    await new Promise((r) => setTimeout(r, delay));
  }
}

/**
 * Brings the repository's mirror up to date (made on first use) and marks
 * it used at `now`; then evicts other mirrors beyond the byte bound.
 */
export async function syncMirror(opts: MirrorOptions, req: MirrorRequest): Promise<Synced> {
  checkUrl(req.url);
  const git = mirrorGit(opts.git);
  mkdirSync(opts.root, { recursive: true });
  const dir = mirrorPath(opts.root, req.url);
  const lock = await lockWithin(`${dir}.lock`, opts.lockWaitMs ?? 10 * 60_000);
  try {
    const origin = existsSync(dir) ? await git.originOf(dir) : null;
    if (origin !== req.url) {
      // Absent, or left half-made by a process that died while creating it.
      rmSync(dir, { recursive: true, force: true });
      await git.create(dir, req.url);
    }
    await git.fetch(dir, req.refs ?? [], req.credential ?? null);
    markUsed(dir, req.now);
  } finally {
    lock.release();
  }
  const evicted = evictBeyond(opts.root, opts.maxBytes ?? MIRROR_MAX_BYTES, dir);
  return { dir, evicted };
}

function markUsed(dir: string, now: number): void {
  writeFileSync(join(dir, LAST_USE), `${now}\n`);
}

/** When the mirror was last used (ms); its directory's mtime for one without a mark. */
function lastUse(dir: string): number {
  try {
    const n = Number(readFileSync(join(dir, LAST_USE), 'utf8').trim());
    if (Number.isFinite(n)) return n;
  } catch {
    // Never marked: a fetch died before its end.
  }
  return lstatSync(dir).mtimeMs;
}

function bytesUnder(path: string): number {
  const st = lstatSync(path);
  if (!st.isDirectory()) return st.size;
  let total = 0;
  for (const e of readdirSync(path)) total += bytesUnder(join(path, e));
  return total;
}

interface MirrorEntry {
  dir: string;
  lastUse: number;
  bytes: number;
}

function listMirrors(root: string): MirrorEntry[] {
  if (!existsSync(root)) return [];
  return readdirSync(root, { withFileTypes: true })
    .filter((e) => e.isDirectory() && e.name.endsWith('.git'))
    .map((e) => join(root, e.name))
    .map((dir) => ({ dir, lastUse: lastUse(dir), bytes: bytesUnder(dir) }));
}

/**
 * Removes `dir` when nobody holds its lock; whether it did. The lock file
 * stays (a few bytes): unlinked, a process that opened it before could hold
 * the old file's lock while another takes the new file's.
 */
function removeUnlessHeld(dir: string): boolean {
  const lock = tryLaneLock(`${dir}.lock`);
  if (!lock) return false;
  try {
    rmSync(dir, { recursive: true, force: true });
    return true;
  } finally {
    lock.release();
  }
}

function evictBeyond(root: string, maxBytes: number, keep: string): string[] {
  const mirrors = listMirrors(root);
  let total = mirrors.reduce((n, m) => n + m.bytes, 0);
  const evicted: string[] = [];
  for (const m of mirrors.filter((x) => x.dir !== keep).sort((a, b) => a.lastUse - b.lastUse)) {
    if (total <= maxBytes) break;
    if (removeUnlessHeld(m.dir)) {
      evicted.push(m.dir);
      total -= m.bytes;
    }
  }
  return evicted;
}

/** `revloop gc`'s part: the mirrors unused since `now - maxIdleMs` that no fetch holds. */
export function pruneIdleMirrors(
  root: string,
  now: number,
  maxIdleMs: number = MIRROR_MAX_IDLE_MS,
): { removed: string[]; held: string[] } {
  const removed: string[] = [];
  const held: string[] = [];
  for (const m of listMirrors(root)) {
    if (now - m.lastUse <= maxIdleMs) continue;
    (removeUnlessHeld(m.dir) ? removed : held).push(m.dir);
  }
  return { removed, held };
}
