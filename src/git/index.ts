/**
 * The git adapter: the `Git` port over the git binary. Nothing else in
 * revloop runs git.
 */
import type { Git } from '../ports/git.js';
import { bundleOps } from './bundle.js';
import { canonicalDiffOps } from './canonical-diff.js';
import { changeOps } from './changes.js';
import { commonDirResolver } from './common-dir.js';
import { fastForwardOps } from './fast-forward.js';
import { fetchOps } from './fetch.js';
import { identityOps } from './identity.js';
import { revOps } from './revs.js';
import { createRunner, type GitOptions } from './run.js';
import { worktreeOps } from './worktree.js';

export { CANONICAL_CONFIG, CANONICAL_DIFF_FLAGS, canonicalDiffArgs } from './canonical-diff.js';
export * from './errors.js';
export type { GitOptions } from './run.js';

/** Default author and committer of the commits revloop makes. */
export const REVLOOP_IDENTITY = { name: 'revloop', email: 'revloop@localhost' } as const;

/**
 * Creates a `Git` over the git binary. Every call spawns git with an argument
 * array (never a shell); options that change an output revloop hashes or
 * parses are pinned per call, so the user's git config cannot change them.
 * Needs git 2.31 or newer (`rev-parse --path-format`).
 */
import { renameOps } from './rename-sections.js';

export function createGit(opts: GitOptions = {}): Git {
  const run = createRunner(opts);
  const commonDir = commonDirResolver(run);
  return {
    ...revOps(run, commonDir),
    ...canonicalDiffOps(run, commonDir, opts.maxDiffTextBytes),
    ...changeOps(run, commonDir),
    ...renameOps(run, commonDir),
    ...worktreeOps(run, opts.identity ?? REVLOOP_IDENTITY),
    ...fastForwardOps(run),
    ...identityOps(run),
    ...bundleOps(run),
    ...fetchOps(run),
  };
}
