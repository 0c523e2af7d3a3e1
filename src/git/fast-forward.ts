/**
 * `review --apply`: fast-forward the change's branch to the run's fixes as
 * `git merge --ff-only` would, and nothing else. The branch moves only from
 * the commit it was admitted at (a compare-and-swap); when a checkout of the
 * repository has it checked out, that checkout's index and files follow, and
 * only when nothing the user has there would be lost.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Git } from '../ports/git.js';
import { CheckoutNotCleanError, RefMovedError } from './errors.js';
import { assertRev } from './revs.js';
import type { GitRunner } from './run.js';
import { parseStatus } from './status-parse.js';

// The user's hooks do not run on revloop's ref moves (as everywhere else in src/git).
const NO_HOOKS: readonly string[] = ['-c', 'core.hooksPath=/dev/null'];

/** Operations that leave the checkout half way (git-status names the same files). */
const UNDER_WAY: readonly [string, string][] = [
  ['MERGE_HEAD', 'a merge'],
  ['rebase-merge', 'a rebase'],
  ['rebase-apply', 'a rebase or am'],
  ['CHERRY_PICK_HEAD', 'a cherry-pick'],
  ['REVERT_HEAD', 'a revert'],
  ['BISECT_LOG', 'a bisect'],
];

export function fastForwardOps(run: GitRunner): Pick<Git, 'fastForward'> {
  const text = (b: Buffer) => b.toString('utf8').trim();

  async function readRef(repo: string, ref: string): Promise<string | null> {
    const res = await run.exec(repo, ['rev-parse', '--verify', '--quiet', ref]);
    return res.code === 0 ? text(res.stdout) : null;
  }

  async function casRef(repo: string, ref: string, to: string, from: string, why: string): Promise<void> {
    const args = [...NO_HOOKS, 'update-ref', '-m', why, ref, to, from];
    const res = await run.exec(repo, args);
    if (res.code === 0) return;
    const now = await readRef(repo, ref);
    if (now !== from) throw new RefMovedError(ref, from, now);
    throw run.failure(repo, args, res);
  }

  /** The checkout whose HEAD is `ref`, if any (the main one or a linked worktree). */
  async function checkoutOf(repo: string, ref: string): Promise<{ dir: string; gitDir: string } | null> {
    const out = text(await run.ok(repo, ['worktree', 'list', '--porcelain']));
    for (const block of out.split('\n\n')) {
      const lines = block.split('\n');
      const dir = lines.find((l) => l.startsWith('worktree '))?.slice('worktree '.length);
      if (dir && lines.includes(`branch ${ref}`) && !lines.includes('bare')) {
        const gitDir = text(await run.ok(dir, ['rev-parse', '--path-format=absolute', '--git-dir']));
        return { dir, gitDir };
      }
    }
    return null;
  }

  async function refuseUnclean(dir: string, gitDir: string): Promise<void> {
    for (const [file, what] of UNDER_WAY) {
      if (existsSync(join(gitDir, file))) throw new CheckoutNotCleanError(dir, 'operation', [what]);
    }
    // Tracked files only: untracked files stay, unless the fix would overwrite one (read-tree says).
    const status = await run.ok(dir, [
      '--no-optional-locks',
      'status',
      '--porcelain=v1',
      '-z',
      '--untracked-files=no',
      '--ignore-submodules=none',
      '--no-renames',
    ]);
    const dirty = parseStatus(status.toString('utf8')).map((e) => e.path);
    if (dirty.length > 0) throw new CheckoutNotCleanError(dir, 'uncommitted', dirty);
  }

  /** Two-tree read-tree: `from`'s index and files become `to`'s, refusing to overwrite anything. */
  async function readTree(dir: string, from: string, to: string, dryRun: boolean): Promise<void> {
    const args = [...NO_HOOKS, 'read-tree', '-m', '-u', ...(dryRun ? ['-n'] : []), from, to];
    const res = await run.exec(dir, args);
    if (res.code === 0) return;
    const untracked = [...res.stderr.matchAll(/Untracked working tree file '([^']+)' would be overwritten/g)];
    if (untracked.length > 0)
      throw new CheckoutNotCleanError(
        dir,
        'untracked',
        untracked.map((m) => m[1] as string),
      );
    const stale = [...res.stderr.matchAll(/Entry '([^']+)' not uptodate/g)];
    if (stale.length > 0)
      throw new CheckoutNotCleanError(
        dir,
        'uncommitted',
        stale.map((m) => m[1] as string),
      );
    throw run.failure(dir, args, res);
  }

  return {
    async fastForward(repo, ref, from, to) {
      for (const r of [ref, from, to]) assertRev(repo, r);
      const why = 'revloop: apply fixes (fast-forward)';
      const checkout = await checkoutOf(repo, ref);
      if (!checkout) {
        await casRef(repo, ref, to, from, why);
        return { checkout: null };
      }
      const { dir, gitDir } = checkout;
      // The checkout's HEAD names the branch: the branch must still be where it was admitted.
      const now = await readRef(dir, ref);
      if (now !== from) throw new RefMovedError(ref, from, now);
      await refuseUnclean(dir, gitDir);
      await readTree(dir, from, to, true);
      // The ref first, by compare-and-swap: a commit the user makes meanwhile wins, and their
      // files are untouched. Then index and files; if that fails, the ref goes back.
      await casRef(dir, ref, to, from, why);
      // Switched to another branch meanwhile: no checkout shows this one, so its files stay.
      if (!headNames(gitDir, ref)) return { checkout: null };
      try {
        await readTree(dir, from, to, false);
      } catch (err) {
        await casRef(dir, ref, from, to, 'revloop: apply undone').catch(() => undefined);
        throw err;
      }
      return { checkout: dir };
    },
  };
}

/** Whether a checkout's HEAD file names `ref` (a symbolic HEAD), read without a process. */
function headNames(gitDir: string, ref: string): boolean {
  try {
    return readFileSync(join(gitDir, 'HEAD'), 'utf8').trim() === `ref: ${ref}`;
  } catch {
    return false;
  }
}
