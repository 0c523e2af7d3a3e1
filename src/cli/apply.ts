/**
 * `review --apply`: fast-forward the change's branch to the run's fixes, only if it has not moved
 * meanwhile; a checked-out branch brings its checkout along, as `git merge --ff-only` would.
 */
import type { RunRow } from '../core/ledger.js';
import { CheckoutNotCleanError, FixBundleRefusedError, RefMovedError } from '../git/errors.js';
import type { LoopDeps } from '../loop/deps.js';
import { haveFixCommit } from '../loop/run/fix-bundles.js';

/** `ok` false: the user asked for the fixes and their branch does not have them (review exits non-zero). */
export interface ApplyResult {
  ok: boolean;
  message: string;
}

export async function applyRun(deps: LoopDeps, run: RunRow): Promise<ApplyResult> {
  const s = run.snapshot;
  const refused = (why: string, then = `the fixes are at ${run.head}`): ApplyResult => ({
    ok: false,
    message: `not applied: ${why}; ${then}`,
  });
  if (run.status !== 'completed' || run.outcome !== 'clear')
    return { ok: false, message: 'not applied: the run did not end clear' };
  if (run.head === s.head) return { ok: true, message: 'nothing to apply: the run made no fix commits' };
  if (!s.headRef || s.headRef === 'HEAD')
    return refused('the head was not a branch (detached HEAD or a commit id)');
  const ref = s.headRef.startsWith('refs/') ? s.headRef : `refs/heads/${s.headRef}`;
  // A tag or a remote-tracking ref is not where fixes land.
  if (!ref.startsWith('refs/heads/')) return refused(`${ref} is not a local branch`);
  const branch = ref.slice('refs/heads/'.length);
  // Fixes made on another clone come from the ledger's bundle of them, checked on import.
  try {
    if (!(await haveFixCommit(deps, run.id, run.head)))
      return refused('the fix commits are not in this clone and the ledger holds no bundle of them');
  } catch (err) {
    if (err instanceof FixBundleRefusedError) return refused(err.message);
    throw err;
  }
  try {
    const { checkout } = await deps.git.fastForward(deps.repoRoot, ref, s.head, run.head);
    const where = checkout ? ` (index and files of ${checkout} too)` : '';
    return { ok: true, message: `applied: ${branch} fast-forwarded to ${run.head.slice(0, 12)}${where}` };
  } catch (err) {
    if (err instanceof RefMovedError)
      return refused(
        `${branch} moved since it was reviewed (now ${err.actual?.slice(0, 12) ?? 'deleted'}, reviewed ${s.head.slice(0, 12)})`,
      );
    if (err instanceof CheckoutNotCleanError) {
      const hint = err.kind === 'operation' ? 'finish or abort it' : 'commit or stash them';
      return refused(
        `${branch} is checked out in ${err.message}`,
        `${hint}, then run: git merge --ff-only ${run.head}`,
      );
    }
    throw err;
  }
}
