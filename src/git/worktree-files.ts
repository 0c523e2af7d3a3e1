/**
 * What a checkout's git dir says without a git process: where it is, where
 * its HEAD points, and whether its index file is still the one a command of
 * ours left. Each answer is only ever used to skip a git process; "don't
 * know" (null, false) means "ask git". These are reads of tiny files, done
 * synchronously: microseconds, where an async read would wait behind whatever
 * holds the event loop (starting git processes does).
 */
import { readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * The git dir of a checkout: a linked worktree's `.git` file names it; a main
 * checkout's `.git` is it. Remembered per checkout until {@link forgetGitDir}
 * (the worktree commands call it when they add or remove one).
 */
const gitDirs = new Map<string, string>();

function gitDirOf(dir: string): string {
  let d = gitDirs.get(dir);
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
export function headIs(dir: string, sha: string): boolean {
  try {
    return readFileSync(join(gitDirOf(dir), 'HEAD'), 'utf8').trim() === sha;
  } catch {
    return false;
  }
}

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
