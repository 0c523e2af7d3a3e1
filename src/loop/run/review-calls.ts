/**
 * The calls of a review round: one per reviewer
 * and chunk, run side by side up to `review.concurrency` (default: one per
 * reviewer and at least four, callsAtOnce in core/config.ts), started chunk
 * by chunk so that a bounded round spreads over the reviewers; calls to an
 * endpoint that caches the prompt's prefix start once the first of them has
 * cached it (prefix-warming.ts). Each call checks the budgets before it
 * starts (callAgent), so a round overshoots the cost budget only by calls
 * already in flight; each verdict is recorded under its call key as it
 * arrives (a chunked round's by group commit: verdict-batch.ts, all written
 * before the round returns). The outcomes are read in configured order
 * (reviewer, then chunk), so the round records what a sequential round would,
 * and the first failure in that order fails the run (invariant 1: no partial
 * clear). A sampled reviewer (`review.samples`) is called once per sample on
 * the same prompt; on `blockers` the samples after the first are drawn once
 * the first samples' replies are in, only where the first raised a blocker
 * (core/samples.ts decides).
 */

import { callsAtOnce } from '../../core/config.js';
import type { Coverage } from '../../core/coverage.js';
import { coverageOf } from '../../core/coverage.js';
import { endForCallFailure } from '../../core/failure-map.js';
import type { FileContext } from '../../core/file-context.js';
import type { Lease } from '../../core/ledger.js';
import { reviewerPrompt } from '../../core/prompt.js';
import { firstSamples, samplesWanted } from '../../core/samples.js';
import type { DroppedFinding, VerdictRowOf } from '../../core/stage-results.js';
import type { SampleRule } from '../../core/types.js';
import {
  type CallOutcome,
  callAgent,
  inOrder,
  prefixWarming,
  runBounded,
  type Settled,
  VerdictBatch,
} from '../calls/index.js';
import type { checkoutForReaders } from '../checkout/index.js';
import { apiReviewContext } from './api-review-context.js';
import { checkFindingLines } from './finding-lines.js';
import type { ReviewPlan } from './review-plan.js';
import { type Agent, type RunContext, RunEnd } from './run-context.js';

export type { DroppedFinding };

export interface ReviewCallResult {
  name: string;
  verdict: VerdictRowOf<'reviewer'>;
  /** Present when the diff was reviewed in chunks. */
  chunk?: { index: number; files: string[] };
  /** Present when the reviewer was sampled: which sample, from 0. */
  sample?: number;
}

interface PlannedCall {
  agent: Agent;
  /** Position of the reviewer in the config. */
  order: number;
  chunk: ReviewPlan['chunks'][number];
  /** Which sample of a sampled reviewer; absent: the reviewer is not sampled. */
  sample?: number | undefined;
}

/** A reviewer's frozen sampling rule (the snapshot's, never the config re-read). */
const ruleOf = (ctx: RunContext, name: string): SampleRule | undefined =>
  ctx.snapshot.reviewers.find((r) => r.name === name)?.samples;

/** Calls of samples `from` up to `to` (exclusive) of one reviewer on one chunk. */
function sampleCalls(
  ctx: RunContext,
  c: Omit<PlannedCall, 'sample'>,
  from: number,
  to: number,
): PlannedCall[] {
  if (ruleOf(ctx, c.agent.name) === undefined) return [c];
  return Array.from({ length: to - from }, (_, k) => ({ ...c, sample: from + k }));
}

/** Configured order: reviewer, then chunk, then sample. */
const configuredOrder = (a: PlannedCall, b: PlannedCall): number =>
  a.order - b.order || a.chunk.index - b.chunk.index || (a.sample ?? 0) - (b.sample ?? 0);

export async function reviewCalls(
  ctx: RunContext,
  lease: Lease,
  round: number,
  head: string,
  plan: ReviewPlan,
  checkout: ReturnType<typeof checkoutForReaders>,
  besideLastCall?: () => void,
): Promise<ReviewCallResult[]> {
  const prompts = new Map<string, Promise<Prepared>>();
  const first: PlannedCall[] = plan.chunks.flatMap((chunk) =>
    ctx.reviewers.flatMap((agent, order) =>
      sampleCalls(ctx, { agent, order, chunk }, 0, firstSamples(ruleOf(ctx, agent.name))),
    ),
  );
  const got = await callsOf(ctx, lease, round, head, plan, checkout, first, prompts, 0, besideLastCall);
  // `on: blockers`: the other samples of a prompt whose first sample raised a blocker.
  const more = got.flatMap(({ call, result }) => {
    if (call.sample !== 0) return [];
    const rule = ruleOf(ctx, call.agent.name);
    const wanted = samplesWanted(
      rule,
      result.verdict.reply,
      plan.isIgnored,
      ctx.criteria,
      ctx.snapshot.policy,
    );
    return wanted > firstSamples(rule) ? sampleCalls(ctx, call, firstSamples(rule), wanted) : [];
  });
  const all =
    more.length === 0
      ? got
      : [...got, ...(await callsOf(ctx, lease, round, head, plan, checkout, more, prompts, first.length))];
  return all.sort((a, b) => configuredOrder(a.call, b.call)).map((x) => x.result);
}

/** One batch of calls run side by side, their results in configured order; a failed call ends the run. */
async function callsOf(
  ctx: RunContext,
  lease: Lease,
  round: number,
  head: string,
  plan: ReviewPlan,
  checkout: ReturnType<typeof checkoutForReaders>,
  calls: readonly PlannedCall[],
  prepared: Map<string, Promise<Prepared>>,
  /** Calls of the round before these (the progress line counts them all). */
  before: number,
  besideLastCall?: () => void,
): Promise<{ call: PlannedCall; result: ReviewCallResult }[]> {
  const chunked = plan.chunks.length > 1;
  // API reviewers get the files of their chunk (the one chunk of an unchunked change holds every file
  // the ignore rules keep), read once per chunk by the blob ids the diff names; a new file the chunk's
  // diff carries whole is not repeated.
  const contextOf = plan.chunks.map((chunk) => apiReviewContext(ctx, head, chunk.files, plan.wholeInDiff));
  const limit = callsAtOnce(ctx.snapshot.review?.concurrency, ctx.reviewers.length);
  ctx.deps.onEvent?.({
    kind: 'calls',
    runId: ctx.run.id,
    round,
    stage: 'review',
    total: before + calls.length,
  });
  const prompts = promptsAhead(ctx, calls, plan.chunks.length, contextOf, limit, prepared);
  // The calls of one chunk share their prompt's prefix: an endpoint that caches it gets it written once.
  const warming = prefixWarming(
    calls.map((c) => ({ group: c.chunk.index, caches: c.agent.reviewer.cachesPrefix === true })),
    limit,
    ctx.deps.clock.sleep,
  );
  // A chunked round records its verdicts by group commit, every one written before it returns.
  const batch = chunked ? new VerdictBatch(ctx, lease) : undefined;
  const settled = await runBounded(
    calls,
    limit,
    async (c, i): Promise<{ call: PlannedCall; res: CallOutcome<'reviewer'> }> => {
      if (i === calls.length - 1 && besideLastCall) ctx.sideWork.whenCallStarts(besideLastCall);
      const { agent, chunk } = c;
      const { prompt, digest } = await prompts.take(i);
      await warming.ready(i);
      const warm = warming.starting(i);
      const reader = checkout.call(agent.reviewer);
      const res = await callAgent(ctx, lease, {
        role: 'reviewer',
        name: agent.name,
        round,
        stage: 'review',
        prompt,
        promptDigest: digest,
        chunk: chunked ? { index: chunk.index, files: chunk.files } : undefined,
        sample: c.sample,
        reviewer: agent.reviewer,
        head,
        repoDir: ctx.worktree,
        beforeAttempt: reader.beforeAttempt,
        afterAttempt: reader.afterAttempt,
        finish: (reply) => {
          const wrote = reader.wrote();
          if (wrote) throw new Error(wrote);
          return checkFindingLines(ctx, head, reply);
        },
        onFirstBytes: warm.onFirstBytes,
        batch,
      }).finally(warm.ended);
      return { call: c, res };
    },
    (r) => !r.res.ok,
  ).finally(() => batch?.flush());
  return inConfiguredOrder(settled, calls, plan.chunks.length);
}

/** The verdicts of a batch in configured order (calls run chunk first); a failed call ends the run. */
function inConfiguredOrder(
  settled: Settled<{ call: PlannedCall; res: CallOutcome<'reviewer'> }>[],
  calls: readonly PlannedCall[],
  chunks: number,
): { call: PlannedCall; result: ReviewCallResult }[] {
  const order = calls
    .map((c, i) => ({ i, c }))
    .sort((a, b) => configuredOrder(a.c, b.c))
    .map((x) => x.i);
  const got: { call: PlannedCall; result: ReviewCallResult }[] = [];
  for (const { call, res } of inOrder(settled, order, (r) => !r.res.ok)) {
    const name = call.agent.name;
    if (!res.ok)
      throw new RunEnd(
        endForCallFailure(res.class, 'reviewer', `reviewer ${name}: ${res.detail}`, res.attempts > 1),
      );
    const result: ReviewCallResult = { name, verdict: res.verdict };
    if (chunks > 1) result.chunk = { index: call.chunk.index, files: call.chunk.files };
    if (call.sample !== undefined) result.sample = call.sample;
    got.push({ call, result });
  }
  return got;
}

/**
 * Prompts are built and saved a few calls ahead of the calls that carry them: on a large
 * change of instant calls, each prompt's context reads and its fsyncs were most of a call's
 * controller time, and saves under way together share the file system's journal commits.
 */
function promptsAhead(
  ctx: RunContext,
  calls: readonly PlannedCall[],
  chunks: number,
  contextOf: readonly ReturnType<typeof apiReviewContext>[],
  limit: number,
  /** Prompts built this round, by reviewer and chunk: a reviewer's samples share theirs. */
  built: Map<string, Promise<Prepared>>,
): { take(i: number): Promise<Prepared> } {
  const ahead = new Map<number, Promise<Prepared>>();
  const taken = new Set<number>();
  const prepare = (i: number): Promise<Prepared> | undefined => {
    const c = calls[i];
    if (c === undefined || taken.has(i)) return undefined;
    let p = ahead.get(i);
    if (!p) {
      const key = `${c.order}:${c.chunk.index}`;
      p = built.get(key) ?? preparePrompt(ctx, c, chunks, contextOf[c.chunk.index]);
      built.set(key, p);
      p.catch(() => undefined);
      ahead.set(i, p);
    }
    return p;
  };
  return {
    take(i) {
      const mine = prepare(i) as Promise<Prepared>;
      taken.add(i);
      ahead.delete(i);
      for (let k = i + 1; k <= i + limit + PROMPTS_AHEAD; k++) prepare(k);
      return mine;
    },
  };
}

/** Prompts prepared beyond the calls running: a few hundred KB each at most (chunk plus context). */
const PROMPTS_AHEAD = 3;

interface Prepared {
  prompt: string;
  digest: string;
}

/** A call's prompt, with the save of it started (callAgent waits for that save before recording). */
async function preparePrompt(
  ctx: RunContext,
  { agent, chunk }: PlannedCall,
  chunks: number,
  context: ((reviewer: Agent['reviewer']) => Promise<FileContext | undefined>) | undefined,
): Promise<Prepared> {
  const prompt = reviewerPrompt({
    reviewer: agent.name,
    criteria: ctx.criteria,
    diff: chunk.text,
    instructions: agent.cfg.instructions,
    onePart: chunks > 1,
    files: await context?.(agent.reviewer),
    hash: ctx.deps.hash,
  });
  // Encoded once: the digest and the saved file are of the same bytes (32 MB of prompts on the bench's large change).
  const bytes = Buffer.from(prompt, 'utf8');
  const digest = ctx.deps.hash(bytes);
  ctx.savePrompt(digest, bytes).catch(() => undefined);
  return { prompt, digest };
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
