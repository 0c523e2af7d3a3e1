/**
 * The checks stage: the configured commands run on a revision, their exit
 * codes and output tails recorded as evidence for progress. Round 0 is the
 * baseline on the snapshot head; round r runs on the revision the fix of round r made.
 */
import type { Lease } from '../../core/ledger.js';
import type { CheckResult } from '../../core/progress.js';
import type { ChecksResult } from '../../core/stage-results.js';
import { runCheck } from '../run-check.js';
import type { RunContext } from '../run-context.js';
import { ensureWorktree } from '../worktree.js';

export async function checksStage(ctx: RunContext, lease: Lease, round: number): Promise<void> {
  const head = ctx.run.head;
  await ensureWorktree(ctx, head);
  const results: CheckResult[] = [];
  const run = ctx.deps.runCheck ?? runCheck;
  for (const check of ctx.loaded.config.checks) {
    ctx.checkBudgets();
    results.push(await run(check, ctx.worktree, ctx.deps.env, () => ctx.deps.clock.now()));
    ctx.checkout.touched();
    await ensureWorktree(ctx, head); // a check must not leave edits for the next one or for the fixer
  }
  const result: ChecksResult = { head, results };
  ctx.deps.crashPoint?.('before-complete:checks');
  ctx.noteStage(await ctx.deps.store.completeStage(lease, { round, stage: 'checks', result }));
}
