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

const EMPTY_TREE_SHA1 = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';
const EMPTY_TREE_SHA256 = '6ef19b41225c5369f1c104d45d8d85efa9b057b53b14b4b9b939dd74decc5321';

/**
 * `-c attr.tree=<the empty tree>`: gitattributes are read from a tree with no
 * `.gitattributes` at all. Git 2.43 to 2.45 read them from HEAD in a bare
 * repository, and any git from 2.43 on honours an `attr.tree` a user or CI set
 * (GitLab sets HEAD); either way the change under review could mark its own
 * code `binary` or `-diff` and hide it from the prompt and the digest. A `-c`
 * beats every config file; GIT_ATTR_SOURCE, which would beat it, is removed
 * from git's environment (run.ts). Older git ignores the key (no attribute
 * source exists there), so it is passed whatever the version. The id follows
 * the repository's hash, told by a commit id of it (an invalid attr.tree is
 * ignored, so it must be right).
 */
export function pinAttributes(commitId: string): string[] {
  return ['-c', `attr.tree=${commitId.length === 64 ? EMPTY_TREE_SHA256 : EMPTY_TREE_SHA1}`];
}
