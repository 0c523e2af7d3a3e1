/**
 * What a checkout's git dir says without a git process: where it is, where
 * its HEAD points, and whether its index file is still the one a command of
 * ours left. Each answer is only ever used to skip a git process; "don't
 * know" (null, false) means "ask git". These are reads of tiny files, done
 * synchronously: microseconds, where an async read would wait behind whatever
 * holds the event loop (starting git processes does).
 */
import {
  existsSync,
  lstatSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join, resolve } from 'node:path';
import { inflateSync } from 'node:zlib';
import { writeFileAtomic } from '../io/atomic-file.js';

/**
 * The git dir of a checkout: a linked worktree's `.git` file names it; a main
 * checkout's `.git` is it. Remembered per checkout until {@link forgetGitDir}
 * (the worktree commands call it when they add or remove one).
 */
const gitDirs = new Map<string, string>();
/**
 * Checkouts whose git dir revloop learnt from the repository's own records
 * (bindWorktree): their `.git`, which a role can write, is never read.
 */
const pinned = new Map<string, string>();

export function pinGitDir(dir: string, admin: string | null): void {
  if (admin === null) pinned.delete(dir);
  else {
    if (pinned.size >= 1000) pinned.delete(pinned.keys().next().value as string);
    pinned.set(dir, admin);
  }
}

function gitDirOf(dir: string): string {
  let d = pinned.get(dir) ?? gitDirs.get(dir);
  if (d === undefined) {
    const dotGit = join(dir, '.git');
    d = statSync(dotGit).isDirectory()
      ? dotGit
      : resolve(
          dir,
          readFileSync(dotGit, 'utf8')
            .replace(/^gitdir: /, '')
            .trim(),
        );
    if (gitDirs.size >= 1000) gitDirs.clear();
    gitDirs.set(dir, d);
  }
  return d;
}

export function forgetGitDir(dir: string): void {
  gitDirs.delete(dir);
}

/** Whether the checkout's HEAD file holds exactly `sha` (a detached HEAD at it). */
export const headIs = (dir: string, sha: string): boolean => detachedHead(dir) === sha;

/**
 * Identifies the checkout's index file as written: git replaces the index
 * through a lock file and a rename, so any write by git gives a new inode
 * (and ctime, which no tool can set back). Null when it cannot be read.
 */
export function indexStamp(dir: string): string | null {
  try {
    const st = statSync(join(gitDirOf(dir), 'index'), { bigint: true });
    return `${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`;
  } catch {
    return null;
  }
}

/** Whether a merge, cherry-pick or revert is half done in the checkout (`git commit` would finish it). */
export function operationInProgress(dir: string): boolean {
  try {
    const gitDir = gitDirOf(dir);
    return ['MERGE_HEAD', 'CHERRY_PICK_HEAD', 'REVERT_HEAD'].some((f) => existsSync(join(gitDir, f)));
  } catch {
    return true;
  }
}

/** The commit id a detached HEAD holds, or null (a symbolic HEAD, an unreadable one). */
export function detachedHead(dir: string): string | null {
  try {
    const v = readFileSync(join(gitDirOf(dir), 'HEAD'), 'utf8').trim();
    return /^([0-9a-f]{40}|[0-9a-f]{64})$/.test(v) ? v : null;
  } catch {
    return null;
  }
}

/**
 * The tree and parents of a commit stored as a loose object (as a commit git
 * just made is), or null when it is not one (packed, elsewhere): ask git.
 */
export function looseCommit(dir: string, sha: string): { tree: string; parents: string[] } | null {
  try {
    const gitDir = gitDirOf(dir);
    // A linked worktree's git dir names the common dir, where the objects are.
    const common = existsSync(join(gitDir, 'commondir'))
      ? resolve(gitDir, readFileSync(join(gitDir, 'commondir'), 'utf8').trim())
      : gitDir;
    const raw = inflateSync(readFileSync(join(common, 'objects', sha.slice(0, 2), sha.slice(2)))).toString(
      'latin1',
    );
    const nul = raw.indexOf('\0');
    if (!raw.startsWith('commit ') || nul < 0) return null;
    const headers = raw.slice(nul + 1, raw.indexOf('\n\n', nul));
    let tree: string | null = null;
    const parents: string[] = [];
    for (const line of headers.split('\n')) {
      if (line.startsWith('tree ')) tree = line.slice(5);
      else if (line.startsWith('parent ')) parents.push(line.slice(7));
    }
    return tree ? { tree, parents } : null;
  } catch {
    return null;
  }
}

/**
 * The registration (`<common>/worktrees/<name>`) whose `gitdir` file names
 * `dir`'s `.git`: found from the repository's records, never from the
 * checkout, whose `.git` a role may have rewritten. Null when none does.
 */
export function registrationOf(common: string, dir: string): string | null {
  const worktrees = join(common, 'worktrees');
  let real: string;
  try {
    real = realpathSync(dir);
  } catch {
    return null;
  }
  const wanted = new Set([join(resolve(dir), '.git'), join(real, '.git')]);
  let entries: string[];
  try {
    entries = readdirSync(worktrees);
  } catch {
    return null;
  }
  for (const name of entries) {
    const admin = join(worktrees, name);
    try {
      if (wanted.has(resolve(readFileSync(join(admin, 'gitdir'), 'utf8').trim()))) return admin;
    } catch {
      // not a registration (or one being made)
    }
  }
  return null;
}

/** Whether the checkout's `.git` is the regular file git wrote, naming exactly `admin`. */
export function gitFileIntact(dir: string, admin: string): boolean {
  const dotGit = join(dir, '.git');
  try {
    if (!lstatSync(dotGit).isFile()) return false;
    const m = /^gitdir: (.+)\n?$/.exec(readFileSync(dotGit, 'utf8'));
    if (m === null) return false;
    const target = resolve(dir, m[1] as string);
    return target === admin || realpathSync(target) === realpathSync(admin);
  } catch {
    return false;
  }
}

/** Writes the checkout's `.git` back to the file git made, whatever a role left there. */
export function restoreGitFile(dir: string, admin: string): void {
  if (gitFileIntact(dir, admin)) return;
  const dotGit = join(dir, '.git');
  rmSync(dotGit, { recursive: true, force: true });
  writeFileSync(dotGit, `gitdir: ${admin}\n`);
}

/**
 * The registration of a linked checkout that may be reused as it is: not
 * locked, with no git command cut short (index.lock) and no merge, rebase,
 * cherry-pick, revert or bisect left in it. Anything else is rebuilt, never
 * reviewed as it is. Null when not.
 */
export function reusableRegistration(common: string, dir: string): string | null {
  const admin = registrationOf(common, dir);
  if (admin === null) return null;
  for (const mark of BLOCKING_MARKS) if (existsSync(join(admin, mark))) return null;
  return existsSync(join(admin, 'HEAD')) ? admin : null;
}

const BLOCKING_MARKS = [
  'locked',
  'index.lock',
  'HEAD.lock',
  'MERGE_HEAD',
  'CHERRY_PICK_HEAD',
  'REVERT_HEAD',
  'BISECT_LOG',
  'rebase-merge',
  'rebase-apply',
];

/** What `git worktree repair` writes after a checkout moved: the registration's way back to it. */
export function repointRegistration(admin: string, dir: string): void {
  writeFileAtomic(join(admin, 'gitdir'), `${join(dir, '.git')}\n`);
}

/**
 * Drops the registrations whose checkout (under one of `prefixes`) is gone:
 * what `git worktree prune` would do, for those checkouts alone. Prune itself
 * acts on every registration of the repository, and can delete the entry of
 * an `add` another process has under way before git marks it.
 */
export function forgetGoneRegistrations(common: string, prefixes: readonly string[]): void {
  const worktrees = join(common, 'worktrees');
  for (const entry of existsSync(worktrees) ? readdirSync(worktrees) : []) {
    const admin = join(worktrees, entry);
    let dotGit: string;
    try {
      dotGit = readFileSync(join(admin, 'gitdir'), 'utf8').trim();
    } catch {
      continue; // no gitdir yet: an add under way elsewhere, or not a checkout named here
    }
    if (prefixes.some((p) => dotGit.startsWith(p)) && !existsSync(dotGit))
      rmSync(admin, { recursive: true, force: true });
  }
}
