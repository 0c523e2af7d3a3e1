/**
 * What a checkout's git dir says without a git process: where it is, where
 * its HEAD points, and whether its index file is still the one a command of
 * ours left. Each answer is only ever used to skip a git process; "don't
 * know" (null, false) means "ask git".
 */
import { readFile, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';

/**
 * The git dir of a checkout: a linked worktree's `.git` file names it; a main
 * checkout's `.git` is it. Remembered per checkout until {@link forgetGitDir}
 * (the worktree commands call it when they add or remove one).
 */
const gitDirs = new Map<string, Promise<string>>();

function gitDirOf(dir: string): Promise<string> {
  let d = gitDirs.get(dir);
  if (!d) {
    const dotGit = join(dir, '.git');
    d = stat(dotGit).then(async (st) =>
      st.isDirectory()
        ? dotGit
        : resolve(dir, (await readFile(dotGit, 'utf8')).replace(/^gitdir: /, '').trim()),
    );
    d.catch(() => gitDirs.delete(dir));
    if (gitDirs.size >= 1000) gitDirs.clear();
    gitDirs.set(dir, d);
  }
  return d;
}

export function forgetGitDir(dir: string): void {
  gitDirs.delete(dir);
}

/** Whether the checkout's HEAD file holds exactly `sha` (a detached HEAD at it). */
export async function headIs(dir: string, sha: string): Promise<boolean> {
  try {
    return (await readFile(join(await gitDirOf(dir), 'HEAD'), 'utf8')).trim() === sha;
  } catch {
    return false;
  }
}

/**
 * Identifies the checkout's index file as written: git replaces the index
 * through a lock file and a rename, so any write by git gives a new inode
 * (and ctime, which no tool can set back). Null when it cannot be read.
 */
export async function indexStamp(dir: string): Promise<string | null> {
  try {
    const st = await stat(join(await gitDirOf(dir), 'index'), { bigint: true });
    return `${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`;
  } catch {
    return null;
  }
}
