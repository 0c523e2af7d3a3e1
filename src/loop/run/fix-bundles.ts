/**
 * Fix commits any machine can have: the controller keeps each fix commit in
 * the ledger as a git bundle that needs only the admitted head, and a clone
 * that lacks a run's commit imports it from there (a worker taking the run
 * over, `review --apply`, a record written elsewhere). An import that does not
 * yield the commit the ledger names is refused, and nothing of it is used.
 */
import type { Lease } from '../../core/ledger.js';
import { unfinishedEnd } from '../../core/run-state.js';
import { FixBundleRefusedError } from '../../git/errors.js';
import type { LoopDeps } from '../deps.js';
import { RunEnd } from './run-context.js';

/**
 * The most bytes one fix bundle may take in the ledger (decision 0177). A fix
 * past it is kept on its own machine only: a clone without it cannot go on
 * with the run, and says so.
 */
export const MAX_FIX_BUNDLE_BYTES = 16 * 1024 * 1024;

/** The private ref an imported fix commit is held under (fetched there, checked, kept). */
export const importRefName = (runId: string, commit: string): string =>
  `refs/revloop/imports/${runId}/${commit}`;

/** Keeps fix commit `commit` (HEAD of `worktree`, made on top of `admitted`) in the ledger, within the bound. */
export async function keepFixBundle(
  deps: Pick<LoopDeps, 'git' | 'store'>,
  lease: Lease,
  worktree: string,
  commit: string,
  admitted: string,
): Promise<void> {
  const bundle = await deps.git.bundleFix(worktree, commit, admitted);
  if (bundle.length > MAX_FIX_BUNDLE_BYTES) return;
  await deps.store.putFixBundle(lease, commit, bundle);
}

/**
 * Whether this clone has commit `commit` of run `runId`, importing it from the
 * ledger's bundle when it does not: false when the ledger holds none. Throws
 * FixBundleRefusedError when the bundle does not yield that commit.
 */
export async function haveFixCommit(
  deps: Pick<LoopDeps, 'git' | 'store' | 'repoRoot'>,
  runId: string,
  commit: string,
): Promise<boolean> {
  if (await deps.git.commitExists(deps.repoRoot, commit)) return true;
  const bundle = await deps.store.getFixBundle(runId, commit);
  if (!bundle) return false;
  await deps.git.importFixBundle(deps.repoRoot, bundle, commit, importRefName(runId, commit));
  return deps.git.commitExists(deps.repoRoot, commit);
}

/** haveFixCommit inside a run: a refused bundle ends the run `failed` with the reason, and is never applied. */
export async function haveFixCommitOrEnd(
  deps: Pick<LoopDeps, 'git' | 'store' | 'repoRoot'>,
  runId: string,
  commit: string,
): Promise<boolean> {
  try {
    return await haveFixCommit(deps, runId, commit);
  } catch (err) {
    if (err instanceof FixBundleRefusedError)
      throw new RunEnd(unfinishedEnd('failed', 'unresumable', err.message));
    throw err;
  }
}
