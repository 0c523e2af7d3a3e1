/** `review --apply`: fast-forward the change's branch to the run's fixes, only if it has not moved meanwhile. */
import type { RunRow } from '../core/ledger.js';
import { currentBranch } from '../git/identity.js';
import type { LoopDeps } from '../loop/deps.js';

export async function applyRun(deps: LoopDeps, run: RunRow): Promise<string> {
  const s = run.snapshot;
  if (run.status !== 'completed' || run.outcome !== 'clear') return 'not applied: the run did not end clear';
  if (run.head === s.head) return 'nothing to apply: the run made no fix commits';
  if (!s.headRef || s.headRef === 'HEAD')
    return `not applied: the head was not a branch; the fixes are at ${run.head}`;
  const ref = s.headRef.startsWith('refs/') ? s.headRef : `refs/heads/${s.headRef}`;
  // A tag or a remote-tracking ref is not where fixes land.
  if (!ref.startsWith('refs/heads/'))
    return `not applied: ${ref} is not a local branch; the fixes are at ${run.head}`;
  // Moving the ref under a checked-out branch would leave its working tree showing the fix reversed.
  if (ref === `refs/heads/${await currentBranch(deps.repoRoot)}`) {
    return `not applied: ${ref.replace('refs/heads/', '')} is checked out here; run: git merge --ff-only ${run.head}`;
  }
  await deps.git.updateRef(deps.repoRoot, ref, run.head, s.head);
  return `applied: ${ref} fast-forwarded to ${run.head.slice(0, 12)}`;
}
