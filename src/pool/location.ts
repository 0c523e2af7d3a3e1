/**
 * Where a repository's pool lives: `<common git dir>/revloop/pool` by
 * default (beside the objects every lane shares, outside the user's working
 * tree so no tool of theirs indexes four copies of it), or `<pool.dir>/<id>`
 * when the config names a directory (the id keeps two repositories apart).
 */
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';

/** The common git dir of a checkout, read from its `.git` without a git process; null if it has none. */
export function commonGitDir(repoRoot: string): string | null {
  const dotGit = join(repoRoot, '.git');
  try {
    if (statSync(dotGit).isDirectory()) return dotGit;
    const gitDir = resolve(
      repoRoot,
      readFileSync(dotGit, 'utf8')
        .replace(/^gitdir: /, '')
        .trim(),
    );
    try {
      return resolve(gitDir, readFileSync(join(gitDir, 'commondir'), 'utf8').trim());
    } catch {
      return gitDir;
    }
  } catch {
    return null;
  }
}

/** The pool directory for the repository whose common git dir is `common`. */
export function poolDir(common: string, configured: string | undefined, repoRoot: string): string {
  if (configured === undefined) return join(common, 'revloop', 'pool');
  const base = isAbsolute(configured) ? configured : resolve(repoRoot, configured);
  return join(base, createHash('sha256').update(common).digest('hex').slice(0, 12));
}
