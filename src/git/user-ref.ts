/**
 * Refs a user gives revloop (`--base`, `--head`, `--keys-from`, `--target`, the
 * hook's): each resolves to exactly one ref or commit. git's own lookup tries a
 * short name as a tag before a branch and a branch before a remote-tracking
 * branch, so a tag `origin/main` pushed with a change would stand in for the
 * target branch wherever `origin/main` is written. A short name that names two
 * refs is refused; a full refname (`refs/remotes/origin/main`) means exactly
 * that ref, and nothing else of the same spelling.
 */
import { UntrustedInputError } from '../core/errors.js';
import type { Git } from '../ports/git.js';
import { UnknownRefError } from './errors.js';

export interface UserRef {
  /** The commit it names. */
  sha: string;
  /** The full ref it named, or null for a commit id, a pseudo-ref (HEAD) or an expression (`main~1`). */
  refname: string | null;
}

type RefGit = Pick<Git, 'resolve'> & Partial<Pick<Git, 'existingRefs'>>;

const FULL_ID = /^([0-9a-f]{40}|[0-9a-f]{64})$/;
const SHORT_ID = /^[0-9a-f]{4,39}$/;
/** HEAD, FETCH_HEAD, ORIG_HEAD...: git reads them from the git directory before any ref of that name. */
const PSEUDO = /^([A-Z][A-Z_]*_)?HEAD$/;

/** The refs git would try for a short name, in git's own order (`git help revisions`). */
export const candidates = (name: string): string[] => [
  `refs/${name}`,
  `refs/tags/${name}`,
  `refs/heads/${name}`,
  `refs/remotes/${name}`,
  `refs/remotes/${name}/HEAD`,
];

/**
 * Resolves `rev` (as given to `flag`) to one commit. A name with a suffix
 * (`main~1`, `origin/main^2`) resolves its name part this way, then the suffix
 * from the ref found.
 */
export async function resolveUserRef(git: RefGit, repo: string, rev: string, flag: string): Promise<UserRef> {
  const cut = rev.search(/[~^]|@\{/);
  const name = cut < 0 ? rev : rev.slice(0, cut);
  const suffix = cut < 0 ? '' : rev.slice(cut);
  if (name === '' || name === '@' || PSEUDO.test(name) || FULL_ID.test(name) || !git.existingRefs)
    return { sha: await git.resolve(repo, rev), refname: null };
  if (name.startsWith('refs/')) {
    // A full name git does not have would fall through to `refs/tags/refs/...` and the like in git.
    if ((await git.existingRefs(repo, [name])).length === 0) throw new UnknownRefError(rev, repo);
    return { sha: await git.resolve(repo, `${name}${suffix}`), refname: suffix ? null : name };
  }
  const found = await git.existingRefs(repo, candidates(name));
  if (found.length > 1)
    throw new UntrustedInputError(
      `${flag} ${rev} is ambiguous: it names ${found.join(' and ')}; pass the full refname of the one meant (e.g. ${found[found.length - 1]})`,
      { flag, rev, refs: found },
    );
  const [only] = found;
  if (only === undefined) return { sha: await git.resolve(repo, rev), refname: null };
  if (SHORT_ID.test(name))
    throw new UntrustedInputError(
      `${flag} ${rev} is ambiguous: it names ${only} and may abbreviate a commit id; pass the full refname or the full commit id`,
      { flag, rev, refs: found },
    );
  return { sha: await git.resolve(repo, `${only}${suffix}`), refname: suffix ? null : only };
}

/**
 * The trusted side of a checkout when no flag names it: the remote's default
 * branch (`origin/HEAD`), else `main`, else `master`, each by its full name;
 * null when none exists (a new repository).
 */
const DEFAULT_TRUSTED_REFS = ['refs/remotes/origin/HEAD', 'refs/heads/main', 'refs/heads/master'];

export async function defaultTrustedRef(git: RefGit, repo: string): Promise<UserRef | null> {
  const found = git.existingRefs ? await git.existingRefs(repo, DEFAULT_TRUSTED_REFS) : DEFAULT_TRUSTED_REFS;
  for (const refname of found) {
    const sha = await git.resolve(repo, refname).catch(() => null);
    if (sha) return { sha, refname };
  }
  return null;
}
