/**
 * Where a repository's checkouts live: outside the repository and its git
 * dir, always. A check or an agent runs in its checkout, and from inside the
 * repository it could walk up to `.revloop/keys/signing.key` or the ledger;
 * under `.git/` Claude Code refuses every edit as a sensitive file. The pool
 * is `${XDG_CACHE_HOME:-$HOME/.cache}/revloop/pool/<repo id>` by default, or
 * `<pool.dir>/<repo id>` when the config names a directory; the repo id keeps
 * two repositories apart and is the same for every checkout of one
 * (decision 0161).
 */
import { createHash } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { UntrustedInputError } from '../../../core/errors.js';

/** revloop's directory in the user's cache: `${XDG_CACHE_HOME:-$HOME/.cache}/revloop`. */
export function cacheRoot(env: NodeJS.ProcessEnv): string {
  const xdg = env.XDG_CACHE_HOME;
  // The XDG spec ignores a relative value.
  if (xdg && isAbsolute(xdg)) return join(xdg, 'revloop');
  return join(env.HOME && isAbsolute(env.HOME) ? env.HOME : homedir(), '.cache', 'revloop');
}

/** A repository's id on this machine: the same from every checkout of it (the common dir's real path, hashed). */
export function repoId(common: string): string {
  return createHash('sha256').update(realPath(common)).digest('hex').slice(0, 16);
}

/**
 * The pool directory for the repository whose common git dir is `common`.
 * UntrustedInputError (exit 12) when it would lie inside the repository's
 * tree or its git dir.
 */
export function poolDir(
  common: string,
  configured: string | undefined,
  repoRoot: string,
  env: NodeJS.ProcessEnv,
): string {
  const base =
    configured === undefined
      ? join(cacheRoot(env), 'pool')
      : isAbsolute(configured)
        ? configured
        : resolve(repoRoot, configured);
  const dir = join(base, repoId(common));
  const what =
    configured === undefined ? 'the pool (under XDG_CACHE_HOME or HOME)' : `pool.dir ${configured}`;
  assertOutsideRepository(dir, repoRoot, common, what);
  return dir;
}

/**
 * Refuses a directory for checkouts inside the repository's tree or its git
 * dir (by real path, so a symbolic link cannot hide it): one line, exit 12.
 */
function assertOutsideRepository(dir: string, repoRoot: string, common: string, what: string): void {
  const real = realPath(dir);
  for (const [root, name] of [
    [repoRoot, 'the repository'],
    [common, 'its git directory'],
  ] as const) {
    const r = realPath(root);
    const rel = relative(r, real);
    if (rel === '' || (!rel.startsWith('..') && !isAbsolute(rel)))
      throw new UntrustedInputError(
        `${what} resolves to ${real}, inside ${name} (${r}): checkouts must live outside the repository and its git directory, where a check or an agent cannot walk up to its keys and ledger`,
        { dir: real, root: r },
      );
  }
}

/** The real path of `p`, resolving the longest existing prefix (the rest need not exist yet). */
function realPath(p: string): string {
  const abs = resolve(p);
  try {
    return realpathSync(abs);
  } catch {
    const parent = dirname(abs);
    return parent === abs ? abs : join(realPath(parent), basename(abs));
  }
}
