/**
 * The repository's common git dir, where objects and refs live (a linked
 * worktree's own git dir holds only its HEAD and index). Diffs run from
 * there, bare, so no checkout's `.gitattributes` can change them.
 */
import type { GitRunner } from './run.js';

export type CommonDir = ((repo: string) => Promise<string>) & {
  /** Records a path's common dir learnt by another call (root asks for both at once). */
  seed(repo: string, dir: string): void;
};

/** A resolver that caches per path: a path's common dir never changes. */
export function commonDirResolver(run: GitRunner): CommonDir {
  const cache = new Map<string, Promise<string>>();
  const resolve = (repo: string): Promise<string> => {
    let p = cache.get(repo);
    if (!p) {
      p = run
        .ok(repo, ['rev-parse', '--path-format=absolute', '--git-common-dir'])
        .then((b) => b.toString('utf8').trim());
      // A failure (not a repository yet) is not cached.
      p.catch(() => cache.delete(repo));
      cache.set(repo, p);
    }
    return p;
  };
  return Object.assign(resolve, {
    seed: (repo: string, dir: string) => {
      if (!cache.has(repo)) cache.set(repo, Promise.resolve(dir));
    },
  });
}

/** Global options that make git treat the common dir (the cwd) as a bare repository. */
export const BARE: readonly string[] = ['--git-dir=.', '--bare'];
