/**
 * The pool's lanes: a bounded set of linked worktrees of one repository,
 * each taken by one run at a time (its lock) and kept across runs, so that a
 * run's checkout moves from the last run's revision to its own by rewriting
 * only the paths that differ.
 *
 * A lane's directory is named by its holder: `lane-<n>-<run>-<token>`. The
 * run that takes a lane moves the entries of the last holder's directory
 * into a new directory of its own name and deletes the old one, so an agent
 * orphaned by an owner that died (one that left its process group) can
 * reach the taker's checkout neither by the old path nor through its working
 * directory, which stays the old, now deleted, directory. Only an agent
 * already inside a subdirectory, or holding a file open, keeps reaching in;
 * the taker's reset and clean run after the move.
 */
import { existsSync, mkdirSync, readdirSync, realpathSync, renameSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import {
  forgetGoneRegistrations,
  registrationOf,
  repointRegistration,
  reusableRegistration,
} from '../../../git/worktree-files.js';
import { type LaneLock, tryLaneLock } from './lane-lock.js';

export interface Lane {
  /** The checkout, named by its holder (it may not exist yet: then it is built). */
  readonly dir: string;
  readonly index: number;
  release(): void;
}

export interface LaneRequest {
  pool: string;
  size: number;
  /** The repository's common git dir (lanes' registrations live in its `worktrees/`). */
  common: string;
  runId: string;
  token: number;
}

/** A lane for the run, or null when every lane is held (the caller makes a checkout of its own). */
export function takeLane(req: LaneRequest): Lane | null {
  mkdirSync(req.pool, { recursive: true });
  for (let index = 0; index < req.size; index++) {
    const lock = tryLaneLock(join(req.pool, `lane-${index}.lock`));
    if (!lock) continue;
    try {
      const dir = join(req.pool, `lane-${index}-${req.runId}-${req.token}`);
      moveInto(req, index, dir);
      return { dir, index, release: () => lock.release() };
    } catch (err) {
      lock.release();
      throw err;
    }
  }
  return null;
}

/** Every `lane-<index>-…` directory in the pool (normally one). */
export function laneDirs(pool: string, index: number): string[] {
  if (!existsSync(pool)) return [];
  const prefix = `lane-${index}-`;
  return readdirSync(pool)
    .filter((e) => e.startsWith(prefix) && !e.endsWith('.lock'))
    .map((e) => join(pool, e));
}

/** The lane indexes present in the pool, from their lock files. */
export function laneIndexes(pool: string): number[] {
  if (!existsSync(pool)) return [];
  return readdirSync(pool)
    .map((e) => /^lane-(\d+)\.lock$/.exec(e)?.[1])
    .filter((n): n is string => n !== undefined)
    .map(Number)
    .sort((a, b) => a - b);
}

export function tryLockLane(pool: string, index: number): LaneLock | null {
  return tryLaneLock(join(pool, `lane-${index}.lock`));
}

/**
 * Makes `dir` the lane's checkout: the last holder's entries moved in when
 * its checkout can be reused as it is, else nothing (the caller builds it).
 * Every other directory of the lane is discarded with its registration.
 */
function moveInto(req: LaneRequest, index: number, dir: string): void {
  const found = laneDirs(req.pool, index);
  const previous = found.find((d) => d !== dir && reusableRegistration(req.common, d) !== null);
  if (previous && !existsSync(dir)) {
    const admin = reusableRegistration(req.common, previous) as string;
    mkdirSync(dir);
    for (const entry of readdirSync(previous)) renameSync(join(previous, entry), join(dir, entry));
    repointRegistration(admin, dir);
  }
  for (const d of found) if (d !== dir) discardCheckout(req.common, d);
  // Only a lane about to be built can have registrations left of checkouts that went without
  // their discard (deleted by hand, a discard cut short): a lane moved or kept pays nothing.
  if (!existsSync(dir)) forgetGoneCheckouts(req.common, req.pool, index);
}

/**
 * Drops the registrations of the lane's checkouts whose directory is gone (a
 * user deleted it): what `git worktree prune` would do, for this lane alone.
 * Prune itself acts on every registration of the repository, and can delete
 * the entry of an `add` another lane or process has under way before git
 * marks it. Only the lane's holder calls this, so no add of this lane runs.
 */
export function forgetGoneCheckouts(common: string, pool: string, index: number): void {
  // Git writes the real path; the pool's may go through a symbolic link.
  forgetGoneRegistrations(
    common,
    [pool, realpathSync(pool)].map((p) => join(p, `lane-${index}-`)),
  );
}

/** Deletes a lane checkout and its registration (what `git worktree remove --force --force` does, locked or not). */
export function discardCheckout(common: string, dir: string): void {
  const admin = registrationOf(common, dir);
  // Renamed first: whatever still writes into it (an orphaned agent) cannot make its removal fail.
  const doomed = join(
    dirname(dir),
    `trash-${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2)}`,
  );
  try {
    renameSync(dir, doomed);
  } catch {
    // gone already
  }
  rmSync(doomed, { recursive: true, force: true });
  if (admin) rmSync(admin, { recursive: true, force: true });
}
