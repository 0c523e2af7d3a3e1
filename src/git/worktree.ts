/**
 * Worktrees for the fixer, the commits the controller makes from its edits,
 * and ref updates. The fixer is untrusted: it may commit, switch branches or
 * leave a merge half done, so commits are built with plumbing (one parent,
 * no hooks, no signing prompt) and only on top of the expected HEAD; the
 * fixer's own commits on top of it count as its edit (fixer-commits.ts).
 */

import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { sep } from 'node:path';
import { UntrustedInputError } from '../core/errors.js';
import type { Git } from '../ports/git.js';
import { bundleOfCheckout } from './bundle.js';
import { RefMovedError, WorktreeConflictError, WorktreeMovedError } from './errors.js';
import { unwindFixerCommits } from './fixer-commits.js';
import { assertRev, explainFailure } from './revs.js';
import type { GitRunner } from './run.js';
import { parseStatus } from './status-parse.js';
import {
  detachedHead,
  forgetGitDir,
  gitFileIntact,
  headIs,
  indexStamp,
  looseCommit,
  operationInProgress,
  pinGitDir,
  registrationOf,
  restoreGitFile,
} from './worktree-files.js';

// Hooks in the user's repository must not run on the controller's checkouts
// and commits (post-checkout, post-commit, reference-transaction).
const NO_HOOKS: readonly string[] = ['-c', 'core.hooksPath=/dev/null'];
// In a role's checkout: the git dir and work tree named, never discovered from its `.git` (a
// role can rewrite that file to point at a config of its own, with a `filter.*.clean` that
// `status` or `add` would run); no hooks, no fsmonitor command.
const inCheckout = (admin: string, dir: string): string[] => [
  `--git-dir=${admin}`,
  `--work-tree=${dir}`,
  ...NO_HOOKS,
  '-c',
  'core.fsmonitor=false',
];
// `git commit` may start gc or maintenance in the background; not in the controller's checkouts.
const NO_AUTO_GC: readonly string[] = ['-c', 'gc.auto=0', '-c', 'maintenance.auto=false'];
const ZERO = /^0+$/;

const text = (b: Buffer): string => b.toString('utf8').trim();

export function worktreeOps(
  repoRun: GitRunner,
  identity: { name: string; email: string },
): Pick<
  Git,
  | 'addWorktree'
  | 'bindWorktree'
  | 'exportTree'
  | 'removeWorktree'
  | 'resetWorktree'
  | 'cleanWorktree'
  | 'indexHidesEdits'
  | 'status'
  | 'commitAll'
  | 'updateRef'
  | 'bundleFix'
> {
  const commitEnv = {
    GIT_AUTHOR_NAME: identity.name,
    GIT_AUTHOR_EMAIL: identity.email,
    GIT_COMMITTER_NAME: identity.name,
    GIT_COMMITTER_EMAIL: identity.email,
  };
  const commitConfig = ['-c', `user.name=${identity.name}`, '-c', `user.email=${identity.email}`];

  // The registration of each bound checkout; every git run in one names it (inCheckout).
  const admins = new Map<string, string>();
  const bind = (dir: string, admin: string | null) => {
    if (admin === null) admins.delete(dir);
    else {
      // The oldest goes, never all: a checkout unbound mid-run would be discovered from its `.git`.
      if (admins.size >= TREE_CACHE_MAX) admins.delete(admins.keys().next().value as string);
      admins.set(dir, admin);
    }
    pinGitDir(dir, admin);
  };
  const hardened = (dir: string, args: readonly string[]): readonly string[] => {
    const admin = admins.get(dir);
    return admin ? [...inCheckout(admin, dir), ...args] : args;
  };
  const run: GitRunner = {
    ...repoRun,
    exec: (dir, args, o) => repoRun.exec(dir, hardened(dir, args), o),
    ok: (dir, args, o) => repoRun.ok(dir, hardened(dir, args), o),
  };
  /** Binds `dir` to its registration in `repo`'s common dir; false when it is no checkout of it. */
  async function bindTo(repo: string, dir: string): Promise<boolean> {
    const common = text(await repoRun.ok(repo, ['rev-parse', '--path-format=absolute', '--git-common-dir']));
    const admin = registrationOf(common, dir);
    bind(dir, admin);
    if (admin !== null) restoreGitFile(dir, admin);
    return admin !== null;
  }

  async function fullSha(repo: string, rev: string): Promise<string> {
    assertRev(repo, rev);
    const args = ['rev-parse', '--verify', '--quiet', `${rev}^{commit}`];
    const res = await run.exec(repo, args);
    if (res.code === 0) return text(res.stdout);
    throw await explainFailure(run, repo, [rev], run.failure(repo, args, res));
  }

  async function readRef(repo: string, ref: string): Promise<string | null> {
    const res = await run.exec(repo, ['rev-parse', '--verify', '--quiet', ref]);
    return res.code === 0 ? text(res.stdout) : null;
  }

  // The tree of each commit commitAll made: the next fix's parent, known without asking git.
  const treeOf = new Map<string, string>();
  // Per checkout, the stamp of an index file we left with no unmerged entries: while the
  // index is still that file, nobody ran a merge there, and no ls-files is needed.
  const cleanIndex = new Map<string, string>();
  const noteCleanIndex = (dir: string) => {
    const stamp = indexStamp(dir);
    if (stamp === null) cleanIndex.delete(dir);
    else {
      if (cleanIndex.size >= TREE_CACHE_MAX) cleanIndex.clear();
      cleanIndex.set(dir, stamp);
    }
  };
  const unmergedIn = async (dir: string): Promise<string[]> => {
    const stamp = indexStamp(dir);
    if (stamp !== null && stamp === cleanIndex.get(dir)) return [];
    // Unmerged index entries are exactly what `status` reports as conflicts.
    return unmergedPaths((await run.ok(dir, ['ls-files', '--unmerged', '-z'])).toString('utf8'));
  };

  async function worktreeHead(dir: string): Promise<string> {
    return text(await run.ok(dir, ['rev-parse', '--verify', 'HEAD']));
  }

  /** Moves a worktree's detached HEAD from `expected` to `sha`; WorktreeMovedError if a racing fixer moved it. */
  async function setHead(dir: string, sha: string, expected: string): Promise<void> {
    assertRev(dir, sha);
    assertRev(dir, expected);
    // --no-deref: move this worktree's HEAD, never a branch it points at;
    // the old value makes it a compare-and-swap against a racing fixer.
    const update = ['update-ref', '--no-deref', '-m', 'revloop: commit fix', 'HEAD', sha, expected];
    const res = await run.exec(dir, [...NO_HOOKS, ...update]);
    if (res.code === 0) return;
    const now = await readRef(dir, 'HEAD');
    if (now !== expected) throw new WorktreeMovedError(dir, expected, now ?? '(none)');
    throw run.failure(dir, update, res);
  }

  const remember = (commit: string, tree: string) => {
    if (treeOf.size >= TREE_CACHE_MAX) treeOf.clear();
    treeOf.set(commit, tree);
  };

  /**
   * One `git commit` writes the tree, the commit and HEAD: no hooks, no
   * signing, no automatic gc, the message verbatim. It commits on whatever
   * HEAD is, so the new commit's parents are read back and must be exactly
   * `expected` (HEAD moving under it is a racing fixer).
   */
  async function porcelainCommit(dir: string, expected: string, message: string): Promise<string | null> {
    const args = [
      ...NO_HOOKS,
      ...NO_AUTO_GC,
      ...commitConfig,
      'commit',
      '--quiet',
      '--no-verify',
      '--no-gpg-sign',
      '--cleanup=verbatim',
      '--no-status',
      '-F',
      '-',
    ];
    const res = await run.exec(dir, args, { input: message, env: commitEnv });
    if (res.code !== 0) {
      if (res.code === 1 && /nothing to commit/.test(res.stdout.toString('utf8'))) return null;
      throw run.failure(dir, ['commit'], res);
    }
    const commit = detachedHead(dir) ?? (await worktreeHead(dir));
    let made = looseCommit(dir, commit);
    if (made === null) {
      const [, ...parents] = text(await run.ok(dir, ['rev-list', '--parents', '-n', '1', commit])).split(' ');
      made = { tree: '', parents };
    }
    if (made.parents.length !== 1 || made.parents[0] !== expected)
      throw new WorktreeMovedError(dir, expected, made.parents.join(' ') || '(none)');
    if (made.tree) remember(commit, made.tree);
    return commit;
  }

  /**
   * With a merge, cherry-pick or revert half done, `git commit` would record
   * it (two parents, another author): commit-tree makes a commit with exactly
   * the one parent, then HEAD moves to it.
   */
  async function plumbingCommit(dir: string, expected: string, message: string): Promise<string | null> {
    // The parent's tree usually needs no process: commitAll made the parent.
    const [tree, parentTree] = await Promise.all([
      run.ok(dir, ['write-tree']).then(text),
      treeOf.get(expected) ?? run.ok(dir, ['rev-parse', `${expected}^{tree}`]).then(text),
    ]);
    if (tree === parentTree) return null;
    const commit = text(
      await run.ok(dir, [...commitConfig, 'commit-tree', '--no-gpg-sign', tree, '-p', expected, '-F', '-'], {
        input: message,
        env: commitEnv,
      }),
    );
    remember(commit, tree);
    await setHead(dir, commit, expected);
    return commit;
  }

  const ops: ReturnType<typeof worktreeOps> = {
    async addWorktree(repo, dir, sha) {
      assertRev(repo, sha);
      forgetGitDir(dir);
      const args = [...NO_HOOKS, 'worktree', 'add', '--detach', '--quiet', dir, sha];
      for (let attempt = 1; ; attempt++) {
        const res = await run.exec(repo, args);
        if (res.code === 0) {
          if (!(await bindTo(repo, dir))) throw new Error(`git worktree add made no registration for ${dir}`);
          return;
        }
        // Git's own races: removing or pruning the last worktree deletes `$GIT_DIR/worktrees`,
        // and an `add` by another process that made that directory a moment before then
        // cannot make its entry in it; a `worktree prune` (the user's, or `gc --auto`'s) that
        // read the new entry before its `locked` mark was written deletes it under the add,
        // which then cannot write its `gitdir`. Git removed what it made; asked again.
        if (attempt < ADD_ATTEMPTS && LOST_WORKTREES_DIR.test(res.stderr)) continue;
        throw await explainFailure(run, repo, [sha], run.failure(repo, args, res));
      }
    },

    bindWorktree: bindTo,

    async exportTree(repo, sha, dir) {
      assertRev(repo, sha);
      mkdirSync(dir, { recursive: true });
      // An index of its own, beside the tree and removed after: the repository's stays as it is.
      const env = { GIT_INDEX_FILE: `${dir}.index` };
      const tree = [...NO_HOOKS, `--work-tree=${dir}`];
      try {
        await run.ok(repo, [...tree, 'read-tree', `${sha}^{tree}`], { env });
        await run.ok(repo, [...tree, 'checkout-index', '--all', '--force'], { env });
      } finally {
        rmSync(`${dir}.index`, { force: true });
      }
    },

    async removeWorktree(repo, dir) {
      // Twice --force: also removes a locked worktree or one with edits.
      forgetGitDir(dir);
      bind(dir, null);
      cleanIndex.delete(dir);
      // Also drops the registration of a checkout whose directory is gone. Never `worktree
      // prune`: it acts on every registration of the repository, and deletes the entry of an
      // `add` under way in another lane or process before that add marks it (seen as a busy
      // worker's lane failing `could not open '.git/worktrees/lane-1-…/gitdir'`).
      const res = await run.exec(repo, ['worktree', 'remove', '--force', '--force', dir]);
      // Idempotent: a directory neither present nor registered is removed already.
      if (res.code !== 0 && existsSync(dir)) throw run.failure(repo, ['worktree', 'remove'], res);
    },

    async resetWorktree(dir, sha) {
      assertRev(dir, sha);
      // A `.git` a role wrote is put back: the next role's own git must find the real one.
      const admin = admins.get(dir);
      if (admin) restoreGitFile(dir, admin);
      // Detach first: if the fixer checked out a branch, a plain reset --hard
      // would move that branch.
      const checkout = [...NO_HOOKS, 'checkout', '--quiet', '--force', '--detach', sha];
      const res = await run.exec(dir, checkout);
      if (res.code !== 0) throw await explainFailure(run, dir, [sha], run.failure(dir, checkout, res));
      // reset --hard drops a half-done merge, cherry-pick or revert the fixer left. Only then:
      // it reads every file's stat again, a third of a second on a 30,000-file tree, which
      // the checkout has just done.
      if (operationInProgress(dir)) await run.ok(dir, [...NO_HOOKS, 'reset', '--hard', '--quiet', sha]);
      // -ff: also nested repositories; -x: ignored files too, build output included.
      await run.ok(dir, ['clean', '-ffdxq']);
      noteCleanIndex(dir);
    },

    async cleanWorktree(dir) {
      await run.ok(dir, ['clean', '-ffdxq']);
    },

    async indexHidesEdits(dir) {
      // `-v`: a lowercase tag is assume-unchanged, `S` skip-worktree, `M` unmerged; a plain entry is `H`.
      const out = (await run.ok(dir, ['ls-files', '-v', '-z'])).toString('latin1');
      for (let at = 0; at < out.length; ) {
        if (out.charCodeAt(at) !== 72 /* H */) return true;
        const end = out.indexOf('\0', at);
        if (end < 0) break;
        at = end + 1;
      }
      return false;
    },

    async status(dir, at) {
      const out = await run.ok(dir, [
        // Read only: a status that refreshes the index would take index.lock in the user's
        // tree, and their own `git commit` at that moment would fail on it.
        '--no-optional-locks',
        'status',
        '--porcelain=v1',
        '-z',
        '--untracked-files=all',
        '--ignore-submodules=none',
        '--no-renames',
      ]);
      const entries = parseStatus(out.toString('utf8'));
      // git never lists `.git`; a role that rewrote it changed its checkout all the same.
      const admin = admins.get(dir);
      if (admin && !gitFileIntact(dir, admin)) entries.push({ path: '.git', code: ' M', conflict: false });
      if (admin && at !== undefined && !headIs(dir, at))
        entries.push({ path: 'HEAD', code: ' M', conflict: false });
      return entries;
    },

    async commitAll(dir, parent, message) {
      const expected = /^[0-9a-f]{40}$/.test(parent) ? parent : await fullSha(dir, parent);
      // Independent reads, started together; HEAD usually needs no process.
      const [head, conflicts] = await Promise.all([
        headIs(dir, expected) ? expected : worktreeHead(dir),
        unmergedIn(dir),
      ]);
      // Commits the fixer made on top of the revision are taken as its edit (fixer-commits.ts).
      if (head !== expected) await unwindFixerCommits(run, dir, expected, head, setHead);
      if (conflicts.length > 0) throw new WorktreeConflictError(dir, conflicts);
      const admin = admins.get(dir);
      if (admin && !gitFileIntact(dir, admin))
        throw new UntrustedInputError(
          `${dir}/.git was written in the checkout (git's own file names ${admin}): the edit is refused and nothing of it lands`,
          { dir },
        );

      await run.ok(dir, ['add', '--all']);
      const commit = operationInProgress(dir)
        ? await plumbingCommit(dir, expected, message)
        : await porcelainCommit(dir, expected, message);
      // The index now holds the commit's tree, nothing unmerged (and was maybe rewritten).
      noteCleanIndex(dir);
      return commit;
    },

    bundleFix: (dir, commit, prerequisite) => bundleOfCheckout(run, dir, commit, prerequisite),

    async updateRef(repo, ref, sha, expectOld, opts) {
      assertRev(repo, ref);
      assertRev(repo, sha);
      if (expectOld !== undefined) assertRev(repo, expectOld);
      const args = ['update-ref', '-m', 'revloop', ref, sha, ...(expectOld === undefined ? [] : [expectOld])];
      // A sole writer lets git wait out a lock a live git holds (a few ms), then takes what is
      // left for a dead one's: the kill harness once SIGKILLed a controller's process group while
      // its update-ref held the run ref's lock, and every resume after failed on "File exists".
      const wait = opts?.soleWriter ? ['-c', `core.filesRefLockTimeout=${REF_LOCK_WAIT_MS}`] : [];
      let res = await run.exec(repo, [...NO_HOOKS, ...wait, ...args]);
      const lock = opts?.soleWriter && res.code !== 0 ? staleRefLock(res.stderr, ref) : null;
      if (lock !== null) {
        rmSync(lock, { force: true });
        res = await run.exec(repo, [...NO_HOOKS, ...wait, ...args]);
      }
      if (res.code === 0) return;
      if (expectOld !== undefined) {
        const actual = await readRef(repo, ref);
        const expectedAbsent = ZERO.test(expectOld);
        if (expectedAbsent ? actual !== null : actual !== expectOld) {
          throw new RefMovedError(ref, expectOld, actual);
        }
      }
      throw await explainFailure(run, repo, [sha], run.failure(repo, args, res));
    },
  };
  return ops;
}

/** Paths of `ls-files --unmerged -z` (`<mode> <sha> <stage>\t<path>`, one per stage), each once. */
function unmergedPaths(out: string): string[] {
  const paths = new Set<string>();
  for (const rec of out.split('\0')) {
    const tab = rec.indexOf('\t');
    if (tab >= 0) paths.add(rec.slice(tab + 1));
  }
  return [...paths];
}

const TREE_CACHE_MAX = 1000;
const ADD_ATTEMPTS = 3;
const LOST_WORKTREES_DIR =
  /could not (?:create directory of|open) '[^']*worktrees\/[^']*'(?: for writing)?: No such file or directory/;

/** How long git waits for a ref lock before a sole writer takes it for a dead writer's. */
const REF_LOCK_WAIT_MS = 1000;

/**
 * The lock file git names when it could not lock `ref` because the lock
 * exists: only the ref's own lock (`<git dir>/<ref>.lock`), never another
 * file the message might name (packed-refs.lock is a lock of every ref).
 */
function staleRefLock(stderr: string, ref: string): string | null {
  const m = /cannot lock ref [^\n]*Unable to create '([^']+)': File exists/.exec(stderr);
  const path = m?.[1];
  return path?.endsWith(`${sep}${ref.split('/').join(sep)}.lock`) ? path : null;
}
