/**
 * One call of one agent under its call key (invariants 6 and 7): a recorded
 * verdict is returned as is; otherwise attempts are made and recorded, only
 * rate limits, unavailability, timeouts and truncations are retried, with
 * jittered backoff, and the first valid reply is recorded once.
 */
import { callKey as makeCallKey } from '../../core/keys.js';
import type { Lease, RunRow } from '../../core/ledger.js';
import { nextRetry } from '../../core/retry-policy.js';
import { samplingOf } from '../../core/samples.js';
import { isRoleVerdict, type VerdictRow, type VerdictRowOf } from '../../core/stage-results.js';
import { parseVerdictRow } from '../../core/stored-rows.js';
import type { CallClass, Role, Stage } from '../../core/types.js';
import type { CallResult, Reviewer } from '../../ports/reviewer.js';
import type { VerdictToRecord } from '../../ports/store.js';
import type { LoopDeps } from '../deps.js';
import { MalformedReplyError, StopRequestedError } from '../errors.js';
import { attemptUntilDone, type FailedAttempt } from './attempts.js';
import type { LedgerCache } from './ledger-cache.js';
import { reusedVerdict, reuseKeyOf } from './reuse.js';
import type { SideWork } from './side-work.js';
import type { VerdictBatch } from './verdict-batch.js';
import { verdictRow } from './verdict-row.js';

/** What a call uses of the run it belongs to (the driver's CallContext is one). */
export interface CallContext {
  readonly deps: Pick<
    LoopDeps,
    'hash' | 'clock' | 'random' | 'signal' | 'store' | 'onEvent' | 'crashPoint' | 'confinement'
  >;
  readonly run: Pick<RunRow, 'id' | 'snapshotKey' | 'snapshot' | 'rerun'>;
  /** What the ledger holds of the run: recorded verdicts are reused, attempts counted on. */
  readonly ledger: LedgerCache;
  /** Invariant 12: checked before each attempt; the wall deadline bounds each call. */
  readonly budget: { check(): void; wallDeadline(): number };
  /** An attempt may change the checkout: a passed freeze check is no longer current. */
  readonly freeze: { noteAttempt(): void };
  /** Told when an agent call has started: side work waits for it. */
  readonly sideWork: Pick<SideWork, 'callStarted'>;
  /** The read-only copy the judges' own files run from, when they name any. */
  readonly judge: { dir: string } | null;
  savePrompt(digest: string, prompt: string | Uint8Array): Promise<void>;
}

export interface CallSpec<R extends Role = Role> {
  role: R;
  name: string;
  round: number;
  stage: Stage;
  prompt: string;
  /** The prompt's digest when the caller has it already (a prompt prepared ahead). */
  promptDigest?: string | undefined;
  /** A review call on one chunk of a diff too large for one call (its key names the chunk). */
  chunk?: { index: number; files: string[] } | undefined;
  /** Which of a reviewer's samples on this prompt (`review.samples`; its call and reuse keys name it); absent: the first. */
  sample?: number | undefined;
  reviewer: Reviewer;
  /** The revision the call looks at. */
  head: string;
  repoDir: string;
  /** Runs before each attempt (the worktree is made to hold exactly the revision). */
  beforeAttempt?: (() => Promise<void>) | undefined;
  /** Runs after each attempt, whatever its class (notes whether the agent touched the worktree). */
  afterAttempt?: (() => Promise<void>) | undefined;
  /** Called when the endpoint's first reply event of an attempt arrives (the prompt's prefix is cached then). */
  onFirstBytes?: (() => void) | undefined;
  /** Turns a valid reply into what is recorded (the fixer's edit becomes a commit). */
  finish?: ((reply: unknown) => Promise<unknown>) | undefined;
  /**
   * Records the verdict by group commit with other finished calls (verdict-batch.ts):
   * the call returns once it is queued (once the writes catch up when a full batch is
   * already waiting), and the caller flushes the batch before using the verdict.
   */
  batch?: VerdictBatch | undefined;
}

export type CallOutcome<R extends Role = Role> =
  | { ok: true; verdict: VerdictRowOf<R>; fresh: boolean }
  | { ok: false; class: Exclude<CallClass, 'ok'>; detail: string; attempts: number };

export async function callAgent<R extends Role>(
  ctx: CallContext,
  lease: Lease,
  spec: CallSpec<R>,
): Promise<CallOutcome<R>> {
  const promptDigest = spec.promptDigest ?? ctx.deps.hash(spec.prompt);
  const key = keyOf(ctx, spec, promptDigest);
  const recorded = ctx.ledger.verdict(key);
  if (recorded) {
    callDone(ctx, spec, 'recorded', 0);
    return { ok: true, verdict: ofRole(recorded, spec.role), fresh: false };
  }
  // Saved while the call runs; awaited before anything of the call is recorded.
  const saved = ctx.savePrompt(promptDigest, spec.prompt);
  saved.catch(() => undefined);

  const ended = endedBefore(ctx, key);
  if (ended) return ended;
  const reuseKey = reuseKeyOf(ctx, spec, promptDigest);
  const call: Call<R> = { ctx, lease, spec, key, promptDigest, saved, reuseKey };
  if (reuseKey !== null) {
    const reused = await reuse(call, reuseKey);
    if (reused) return reused;
  }
  const { deps } = ctx;
  const end = await attemptUntilDone({
    from: ctx.ledger.attemptsOf(key) + 1,
    retry: ctx.run.snapshot.retry,
    random: deps.random,
    clock: deps.clock,
    signal: deps.signal,
    attempt: (n) => makeAttempt(call, n),
    failed: (n, res) => endFailedAttempt(call, n, res),
    retrying: (res, delayMs) =>
      deps.onEvent?.({ kind: 'retry', runId: ctx.run.id, name: spec.name, class: res.class, delayMs }),
  });
  if (end.res.ok) return recordReply(call, end.attempt, end.res);
  return { ok: false, class: end.res.class, detail: end.res.detail, attempts: end.attempt };
}

/** One call in progress: what each of its attempts is made and recorded under. */
interface Call<R extends Role> {
  ctx: CallContext;
  lease: Lease;
  spec: CallSpec<R>;
  key: string;
  promptDigest: string;
  /** The prompt's save, awaited before anything of the call is recorded. */
  saved: Promise<void>;
  /** The digest of the call's complete input when its agent reads nothing but its prompt (reuse.ts). */
  reuseKey: string | null;
}

/** Records an identical call's verdict as this call's, at no cost and with no attempt made; null when there is none. */
async function reuse<R extends Role>(call: Call<R>, reuseKey: string): Promise<CallOutcome<R> | null> {
  const { ctx, lease, spec, key, promptDigest, saved } = call;
  // Invariant 12 still holds the run: an exhausted budget aborts before anything is recorded.
  ctx.budget.check();
  const row = await reusedVerdict(ctx, spec, { key, promptDigest, reuseKey });
  if (!row) return null;
  const verdict = await record(ctx, lease, spec.batch, saved, { verdict: row });
  callDone(ctx, spec, 'reused', 0);
  return { ok: true, verdict: ofRole(verdict, spec.role), fresh: false };
}

/** The call's key names everything its verdict depends on, so a recorded one is reused only for the same call. */
function keyOf(ctx: CallContext, spec: CallSpec, promptDigest: string): string {
  return makeCallKey(
    {
      snapshotKey: ctx.run.snapshotKey,
      runId: ctx.run.id,
      round: spec.round,
      stage: spec.stage,
      role: spec.role,
      name: spec.name,
      promptDigest,
      chunk: spec.chunk,
      sample: spec.sample,
    },
    ctx.deps.hash,
  );
}

/** Tells the progress printer a call ended: done, recorded before (a resumed run), or failed. */
function callDone(ctx: CallContext, spec: CallSpec, cls: string, costUsd: number): void {
  ctx.deps.onEvent?.({
    kind: 'call_done',
    runId: ctx.run.id,
    round: spec.round,
    role: spec.role,
    name: spec.name,
    class: cls,
    costUsd,
  });
}

/** Begins attempt number `attempt` in the ledger, then asks the agent: an attempt is recorded before it is made. */
async function makeAttempt<R extends Role>(
  { ctx, lease, spec, key, promptDigest }: Call<R>,
  attempt: number,
): Promise<CallResult> {
  const { deps } = ctx;
  const { snapshot } = ctx.run;
  // A stop request (SIGTERM) is honoured between attempts, never inside one: the call in
  // flight finishes and its verdict is kept, then the driver releases the lease.
  if (deps.signal?.aborted) throw new StopRequestedError(ctx.run.id);
  ctx.budget.check();
  ctx.freeze.noteAttempt();
  await spec.beforeAttempt?.();
  await deps.store.beginAttempt(lease, {
    callKey: key,
    attemptNo: attempt,
    round: spec.round,
    stage: spec.stage,
    role: spec.role,
    reviewer: spec.name,
    confined: (deps.confinement?.() ?? null) !== null,
  });
  deps.onEvent?.({
    kind: 'call',
    runId: ctx.run.id,
    round: spec.round,
    role: spec.role,
    name: spec.name,
    attempt,
  });
  deps.crashPoint?.(`call:${spec.stage}`);
  const now = deps.clock.now();
  const pending = spec.reviewer.call({
    callKey: key,
    role: spec.role,
    name: spec.name,
    round: spec.round,
    prompt: spec.prompt,
    promptDigest,
    base: snapshot.base,
    head: spec.head,
    repoDir: spec.repoDir,
    readOnlyDirs: ctx.judge ? [ctx.judge.dir] : [],
    deadlineMs: Math.min(now + snapshot.callSeconds * 1000, ctx.budget.wallDeadline()),
    // Not deps.signal: a stop lets this call finish (the deadline still bounds it).
    signal: undefined,
    sampling: samplingOf(snapshot.review, spec.sample),
    sample: spec.sample,
    onFirstBytes: spec.onFirstBytes,
  });
  ctx.sideWork.callStarted();
  const res = await pending;
  await spec.afterAttempt?.();
  return res;
}

/** Records a valid reply (finished first, e.g. the fixer's edit committed) as the call's verdict, once. */
async function recordReply<R extends Role>(
  call: Call<R>,
  attempt: number,
  res: Extract<CallResult, { ok: true }>,
): Promise<CallOutcome<R>> {
  const { ctx, lease, spec, key, saved } = call;
  let reply: unknown;
  try {
    reply = spec.finish ? await spec.finish(res.reply) : res.reply;
  } catch (err) {
    const detail = (err as Error).message;
    // A reply that does not hold at the revision is the agent's malformed output, not a crash.
    const cls = err instanceof MalformedReplyError ? 'malformed' : 'failed';
    await saved;
    // The reply was paid for: its cost stays on the run (invariant 12), verdict or not.
    await ctx.deps.store.endAttempt(lease, key, attempt, cls, detail, res.costUsd);
    return { ok: false, class: cls, detail, attempts: attempt };
  }
  const row = verdictRow(ctx.run, spec, call, { modelId: res.modelId, reply, costUsd: res.costUsd });
  const verdict = await record(ctx, lease, spec.batch, saved, {
    verdict: row,
    endsAttempt: attempt,
    attemptDetail: res.note,
  });
  const mine = ofRole(verdict, spec.role);
  callDone(ctx, spec, 'ok', verdict.costUsd);
  return { ok: true, verdict: mine, fresh: true };
}

/** Records a failed attempt's end; a rejected reply that was paid for keeps its cost on the run (invariant 12). */
async function endFailedAttempt<R extends Role>(
  { ctx, lease, spec, key, saved }: Call<R>,
  attempt: number,
  res: FailedAttempt,
): Promise<void> {
  await saved;
  await ctx.deps.store.endAttempt(lease, key, attempt, res.class, res.detail, res.costUsd);
  callDone(ctx, spec, res.class, res.costUsd ?? 0);
}

/**
 * The verdict and the attempt's end in one transaction: a crash leaves either the
 * attempt `started` (marked `unknown` on resume, which calls again under the same key)
 * or both, never an `ok` attempt without its verdict. The prompt is on disk before the
 * ledger names its digest (finishing a fixer's reply, the commit, does not need it).
 */
async function record(
  ctx: CallContext,
  lease: Lease,
  batch: VerdictBatch | undefined,
  saved: Promise<void>,
  item: VerdictToRecord,
): Promise<VerdictRow> {
  if (batch) {
    // Queued: noted now as the store will return it (its time is the store's once written).
    const verdict = parseVerdictRow({ ...item.verdict, recordedAt: ctx.deps.clock.now() });
    const queued = batch.add(item, saved);
    ctx.ledger.noteVerdict(verdict);
    await queued;
    return verdict;
  }
  await saved;
  const { verdict } = await ctx.deps.store.recordVerdict(
    lease,
    item.verdict,
    item.endsAttempt,
    item.attemptDetail,
  );
  ctx.ledger.noteVerdict(verdict);
  return verdict;
}

/** The call key names the role, so a verdict under it of another role is a corrupt ledger, never a reply to use. */
function ofRole<R extends Role>(v: VerdictRow, role: R): VerdictRowOf<R> {
  if (isRoleVerdict(v, role)) return v;
  throw new Error(`verdict ${v.callKey} was recorded for a ${v.role}, not a ${role}`);
}

/**
 * Invariant 7 across owners: an earlier owner's last attempt of this call
 * stands when it ended in a class never retried or used the last retry (that
 * owner died before it could end the run); the call then ends as it did. Only
 * an interrupted attempt (`started`, `unknown`) or one with retries left is
 * made again.
 */
function endedBefore(ctx: CallContext, key: string): Extract<CallOutcome, { ok: false }> | null {
  const last = ctx.ledger.lastAttempt(key);
  if (!last || last.class === 'started' || last.class === 'unknown' || last.class === 'ok') return null;
  const { retry } = ctx.run.snapshot;
  const next = nextRetry({
    cls: last.class,
    attempt: last.attemptNo,
    maxAttempts: retry.attempts,
    baseDelayMs: retry.baseDelayMs,
    maxDelayMs: retry.maxDelayMs,
    // Only whether to retry is asked here: no randomness is spent on a delay.
    random: () => 0,
  });
  if (next.retry) return null;
  return { ok: false, class: last.class, detail: last.detail ?? last.class, attempts: last.attemptNo };
}
