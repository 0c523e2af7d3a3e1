/**
 * The calls of a review round (issue 17, points 2 and 3): one per reviewer
 * and chunk, run side by side up to `review.concurrency` (default: as many as
 * there are reviewers), started chunk by chunk so that a bounded round spreads
 * over the reviewers. Each call checks the budgets before it starts
 * (callAgent), so a round overshoots the cost budget only by calls already in
 * flight; each verdict is recorded under its call key as it arrives. The
 * outcomes are read in configured order (reviewer, then chunk), so the round
 * records what a sequential round would, and the first failure in that order
 * fails the run (invariant 1: no partial clear).
 */
import type { Coverage } from '../core/coverage.js';
import { coverageOf } from '../core/coverage.js';
import { endForCallFailure } from '../core/failure-map.js';
import type { Lease, VerdictRow } from '../core/ledger.js';
import { reviewerPrompt } from '../core/prompt.js';
import { apiReviewContext } from './api-review-context.js';
import { type CallOutcome, callAgent } from './call.js';
import { inOrder, runBounded } from './concurrent-calls.js';
import { checkFindingLines } from './finding-lines.js';
import type { ReviewPlan } from './review-plan.js';
import { type Agent, type RunContext, RunEnd } from './run-context.js';
import type { checkoutForReaders } from './worktree.js';

export interface DroppedFinding {
  reviewer: string;
  callKey: string;
  /** The finding's index in its verdict's reply. */
  index: number;
  file: string;
  /** The ignore rule that matched its path. */
  rule: string;
}

export interface ReviewCallResult {
  name: string;
  verdict: VerdictRow;
  /** Present when the diff was reviewed in chunks. */
  chunk?: { index: number; files: string[] };
}

interface PlannedCall {
  agent: Agent;
  /** Position of the reviewer in the config. */
  order: number;
  chunk: ReviewPlan['chunks'][number];
}

export async function reviewCalls(
  ctx: RunContext,
  lease: Lease,
  round: number,
  head: string,
  plan: ReviewPlan,
  checkout: ReturnType<typeof checkoutForReaders>,
  besideLastCall?: () => void,
): Promise<ReviewCallResult[]> {
  const chunked = plan.chunks.length > 1;
  const calls: PlannedCall[] = plan.chunks.flatMap((chunk) =>
    ctx.reviewers.map((agent, order) => ({ agent, order, chunk })),
  );
  // API reviewers get the files of their chunk (of the whole change when it is one call), read once per chunk.
  const contextOf = plan.chunks.map((chunk) =>
    apiReviewContext(ctx, head, chunked ? chunk.files : undefined),
  );
  const limit = ctx.snapshot.review?.concurrency ?? ctx.reviewers.length;
  const settled = await runBounded(
    calls,
    limit,
    async (c, i): Promise<{ call: PlannedCall; res: CallOutcome }> => {
      if (i === calls.length - 1 && besideLastCall) ctx.sideWork.whenCallStarts(besideLastCall);
      const { agent, chunk } = c;
      const prompt = reviewerPrompt({
        reviewer: agent.name,
        criteria: ctx.criteria,
        diff: chunk.text,
        instructions: agent.cfg.instructions,
        part: chunked ? { index: chunk.index, count: plan.chunks.length } : undefined,
        files: await contextOf[chunk.index]?.(agent.reviewer),
      });
      const res = await callAgent(ctx, lease, {
        role: 'reviewer',
        name: agent.name,
        round,
        stage: 'review',
        prompt,
        chunk: chunked ? { index: chunk.index, files: chunk.files } : undefined,
        reviewer: agent.reviewer,
        head,
        repoDir: ctx.worktree,
        beforeAttempt: checkout.beforeAttempt(agent.reviewer),
        finish: (reply) => checkFindingLines(ctx, head, reply),
      });
      return { call: c, res };
    },
    (r) => !r.res.ok,
  );
  // Configured order: reviewer first, then chunk (the run order is chunk first).
  const order = calls
    .map((c, i) => ({ i, key: c.order * plan.chunks.length + c.chunk.index }))
    .sort((a, b) => a.key - b.key)
    .map((x) => x.i);
  const got: ReviewCallResult[] = [];
  for (const { call, res } of inOrder(settled, order, (r) => !r.res.ok)) {
    const name = call.agent.name;
    if (!res.ok)
      throw new RunEnd(
        endForCallFailure(res.class, 'reviewer', `reviewer ${name}: ${res.detail}`, res.attempts > 1),
      );
    const chunk = chunked ? { index: call.chunk.index, files: call.chunk.files } : undefined;
    got.push(chunk ? { name, verdict: res.verdict, chunk } : { name, verdict: res.verdict });
  }
  return got;
}

/** Each reviewer's coverage: the diff's files, and those of the chunks it returned a verdict on. */
export function roundCoverage(
  reviewers: readonly Pick<Agent, 'name'>[],
  plan: Pick<ReviewPlan, 'files' | 'ignored' | 'chunks'>,
  got: readonly Pick<ReviewCallResult, 'name' | 'chunk'>[],
): Record<string, Coverage> {
  const out: Record<string, Coverage> = {};
  for (const r of reviewers) {
    const mine = got.filter((g) => g.name === r.name);
    // Unchunked, a verdict covers the one chunk, which carries every kept file.
    const files = mine.map((g) => g.chunk?.files ?? plan.chunks[0]?.files ?? []);
    out[r.name] = coverageOf(plan.files, plan.ignored, files);
  }
  return out;
}
