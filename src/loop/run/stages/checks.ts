/**
 * The checks stage: the configured commands run on a revision, their exit
 * codes and output tails recorded as evidence for progress. Round 0 is the
 * baseline on the snapshot head; round r runs on the revision the fix of round r made.
 *
 * Round 0 also runs the checks that fail on the change as admitted once more
 * at its merge base, and records them with its own: a check the change broke
 * (it passed there) is a blocker (core/check-blockers.ts), one already broken
 * is not. Only those: a check that passes on the change needs no base, since
 * any later failure is already measured against the change. Once per run: a
 * resumed run and replay read the record; a kill before it runs the stage again, whole.
 */
import type { Lease } from '../../../core/ledger.js';
import type { CheckResult } from '../../../core/progress.js';
import type { ChecksResult } from '../../../core/stage-results.js';
import { NO_GRANT, roleEnv } from '../../../reviewers/role-env.js';
import { ensureWorktree } from '../../checkout/index.js';
import { runCheck } from '../run-check.js';
import type { RunContext } from '../run-context.js';

type Check = RunContext['loaded']['config']['checks'][number];

export async function checksStage(ctx: RunContext, lease: Lease, round: number): Promise<void> {
  const head = ctx.run.head;
  const checks = ctx.loaded.config.checks;
  const results = await runChecks(ctx, head, checks);
  const failing = round === 0 ? checks.filter((_, i) => !results[i]?.passed) : [];
  const result: ChecksResult = { head, results };
  if (failing.length > 0) {
    const commit = ctx.snapshot.mergeBase;
    // Said on the live line: the checks run a second time, on another revision.
    ctx.deps.onEvent?.({ kind: 'stage', runId: ctx.run.id, round, stage: 'checks at base', head: commit });
    result.base = { commit, results: await runChecks(ctx, commit, failing) };
    await ensureWorktree(ctx, head); // the next stage reads the revision under review
  }
  ctx.deps.crashPoint?.('before-complete:checks');
  ctx.ledger.noteStage(await ctx.deps.store.completeStage(lease, { round, stage: 'checks', result }));
}

/** Each check in order on `sha`, confined in the run's checkout, which is reset to `sha` after each. */
async function runChecks(ctx: RunContext, sha: string, checks: readonly Check[]): Promise<CheckResult[]> {
  await ensureWorktree(ctx, sha);
  const results: CheckResult[] = [];
  const run = ctx.deps.runCheck ?? runCheck;
  for (const check of checks) {
    ctx.budget.check();
    // A check runs the change's own code: it gets the allowlist and what its config names, no more.
    const env = roleEnv(ctx.deps.env, { ...NO_GRANT, names: check.env ?? [] });
    const confinement = ctx.deps.confinement?.() ?? null;
    const confine = confinement
      ? { confinement, view: { checkout: ctx.worktree, writable: true } }
      : undefined;
    results.push(await run(check, ctx.worktree, env, () => ctx.deps.clock.now(), confine));
    ctx.checkout.touched();
    await ensureWorktree(ctx, sha); // a check must not leave edits for the next one or for the fixer
  }
  return results;
}
