/**
 * Invariant 10: before a blocker costs a rework round, a fresh-context
 * refuter given only the diff, the criteria and the claim tries to refute it.
 */
import { costSpent } from '../../core/budget.js';
import { endForCallFailure } from '../../core/failure-map.js';
import type { Lease, Refutation } from '../../core/ledger.js';
import { refuterPrompt } from '../../core/prompt.js';
import { isBlocker } from '../../core/run-report.js';
import type { RefuterReply } from '../../core/types.js';
import { callAgent } from '../call.js';
import { refuterDiff } from '../focused-prompts.js';
import { checkFrozen, startFreshDigest } from '../freeze.js';
import { type RunContext, RunEnd } from '../run-context.js';
import { checkoutForReaders } from '../worktree.js';
import { CONTROLLER_REVIEWER } from './review.js';

export interface RefuteResult {
  refuter: string | null;
  decisions: { findingId: string; callKey: string; decision: 'upheld' | 'refuted' }[];
}

export async function refuteStage(
  ctx: RunContext,
  lease: Lease,
  round: number,
  diff: string,
  expectedDigest: string,
): Promise<void> {
  const refuter = ctx.refuter;
  const findings = (await ctx.deps.store.listFindings(ctx.run.id)).filter(
    (f) => f.round === round && f.reviewer !== CONTROLLER_REVIEWER && isBlocker(f),
  );
  const refutations: { findingId: string; refutation: Refutation }[] = [];
  const result: RefuteResult = { refuter: refuter?.name ?? null, decisions: [] };
  // Invariant 12: with the budget spent after a complete review, no refuter is paid for; the
  // decision then ends the run findings / budget (an attempt would abort it with no outcome).
  if (refuter && findings.length > 0 && !costSpent(ctx.spent, ctx.snapshot.budgets)) {
    await checkFrozen(ctx, expectedDigest);
    const checkout = checkoutForReaders(ctx, ctx.run.head, [refuter.reviewer]);
    await checkout.ready;
    const fresh = startFreshDigest(ctx);
    for (const f of findings) {
      // Issue 17: of a diff too large for one call, the claim's file only (focused-prompts.ts).
      const shown = await refuterDiff(ctx, diff, f.reported, refuter.reviewer);
      const prompt = refuterPrompt({
        criteria: ctx.criteria,
        ...shown,
        claim: f.reported,
        instructions: refuter.cfg.instructions,
      });
      const res = await callAgent(ctx, lease, {
        role: 'refuter',
        name: refuter.name,
        round,
        stage: 'refute',
        prompt,
        reviewer: refuter.reviewer,
        head: ctx.run.head,
        repoDir: ctx.worktree,
        beforeAttempt: checkout.beforeAttempt(refuter.reviewer),
      });
      if (!res.ok)
        throw new RunEnd(endForCallFailure(res.class, 'refuter', `refuter: ${res.detail}`, res.attempts > 1));
      const reply = res.verdict.reply as RefuterReply;
      const by = res.verdict.modelId ? `${refuter.name} (${res.verdict.modelId})` : refuter.name;
      refutations.push({
        findingId: f.id,
        refutation: { decision: reply.decision, by, reason: reply.reason, callKey: res.verdict.callKey },
      });
      result.decisions.push({ findingId: f.id, callKey: res.verdict.callKey, decision: reply.decision });
    }
    await Promise.all([checkout.settle(), checkFrozen(ctx, expectedDigest, 'record', fresh)]);
  }
  ctx.deps.crashPoint?.('before-complete:refute');
  await ctx.deps.store.completeStage(lease, {
    round,
    stage: 'refute',
    result,
    refutations,
    run: { costUsd: ctx.spent },
  });
}
