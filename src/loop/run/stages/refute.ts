/**
 * Invariant 10: before a blocker costs a rework round, a fresh-context
 * refuter given only the diff, the criteria and the claim tries to refute it.
 */
import { endForCallFailure } from '../../../core/failure-map.js';
import type { Lease, Refutation } from '../../../core/ledger.js';
import { refuterPrompt } from '../../../core/prompt.js';
import { memoryJudge } from '../../../core/refute-memory.js';
import { refutable, refutationOf, refutationTargets } from '../../../core/refute-plan.js';
import type { RefuteResult } from '../../../core/stage-results.js';
import { callAgent } from '../../calls/index.js';
import { checkoutForReaders } from '../../checkout/index.js';
import { refuterDiff } from '../focused-prompts.js';
import { checkFrozen, startFreshDigest } from '../freeze.js';
import type { LineFacts } from '../line-facts.js';
import { memoryFacts } from '../remembered-refutations.js';
import { type RunContext, RunEnd } from '../run-context.js';

export async function refuteStage(
  ctx: RunContext,
  lease: Lease,
  round: number,
  diff: string,
  expectedDigest: string,
  lines: LineFacts,
): Promise<void> {
  const refuter = ctx.refuter;
  const all = await ctx.deps.store.listFindings(ctx.run.id);
  // Facts first: the refuter's earlier decisions on this change and where their lines went.
  const memory = refuter ? await memoryFacts(ctx, refutable(all, round), all, lines) : [];
  // The planner (core/refute-plan.ts) answers from memory what it covers and names the findings
  // to send; with the budget spent it sends none (an attempt would abort the run with no outcome).
  const {
    targets: findings,
    overCap,
    remembered,
  } = refutationTargets(all, round, {
    hasRefuter: refuter !== null,
    spentUsd: ctx.ledger.spent(),
    budgets: ctx.snapshot.budgets,
    maxPerReply: ctx.snapshot.review?.maxRefutedPerReply,
    memory: { facts: memory, judge: memoryJudge(ctx.run), hash: ctx.deps.hash },
  });
  // Remembered refutations are written with the stage's completion, in its one transaction.
  const refutations: { findingId: string; refutation: Refutation }[] = [...remembered];
  const result: RefuteResult = {
    refuter: refuter?.name ?? null,
    decisions: [],
    ...(overCap.length > 0 ? { overCap } : {}),
    ...(memory.length > 0 ? { memory } : {}),
    ...(remembered.length > 0
      ? { remembered: remembered.map((r) => ({ findingId: r.findingId, origin: r.refutation.origin })) }
      : {}),
  };
  if (refuter && findings.length > 0) {
    await checkFrozen(ctx, expectedDigest);
    const checkout = checkoutForReaders(ctx, ctx.run.head, [refuter.reviewer]);
    await checkout.ready;
    const fresh = startFreshDigest(ctx);
    for (const f of findings) {
      // Of a diff too large for one call, the claim's file only (focused-prompts.ts).
      const shown = await refuterDiff(ctx, diff, f.reported, refuter.reviewer);
      const prompt = refuterPrompt({
        criteria: ctx.criteria,
        ...shown,
        claim: f.reported,
        instructions: refuter.cfg.instructions,
        hash: ctx.deps.hash,
      });
      const reader = checkout.call(refuter.reviewer);
      const res = await callAgent(ctx, lease, {
        role: 'refuter',
        name: refuter.name,
        round,
        stage: 'refute',
        prompt,
        reviewer: refuter.reviewer,
        head: ctx.run.head,
        repoDir: ctx.worktree,
        beforeAttempt: reader.beforeAttempt,
        afterAttempt: reader.afterAttempt,
        finish: async (reply) => {
          const wrote = reader.wrote();
          if (wrote) throw new Error(wrote);
          return reply;
        },
      });
      if (!res.ok)
        throw new RunEnd(endForCallFailure(res.class, 'refuter', `refuter: ${res.detail}`, res.attempts > 1));
      const { callKey, modelId } = res.verdict;
      const refutation = refutationOf(res.verdict.reply, { callKey, refuter: refuter.name, modelId });
      refutations.push({ findingId: f.id, refutation });
      result.decisions.push({ findingId: f.id, callKey, decision: refutation.decision });
    }
    await Promise.all([checkout.settle(), checkFrozen(ctx, expectedDigest, 'record', fresh)]);
  }
  ctx.deps.crashPoint?.('before-complete:refute');
  ctx.ledger.noteStage(
    await ctx.deps.store.completeStage(lease, {
      round,
      stage: 'refute',
      result,
      refutations,
    }),
  );
}
