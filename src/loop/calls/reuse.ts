/**
 * A call whose complete input is byte-identical to one already answered in
 * the same repository reuses that verdict instead of calling again: recorded
 * under the new call's own key, priced at nothing, naming the call it came
 * from. Only agents whose input is their prompt alone take part (the
 * snapshot's `reuse: prompt`); the fixer never does. The reused reply is
 * checked again as a fresh one would be (its files and lines at this
 * revision), and a reply that no longer holds is asked for instead.
 */
import { reuseKey } from '../../core/keys.js';
import type { RunRow } from '../../core/ledger.js';
import { samplingOf } from '../../core/samples.js';
import type { NewVerdict, ReusedFrom, VerdictRow } from '../../core/stage-results.js';
import type { Role, Stage } from '../../core/types.js';
import type { LoopDeps } from '../deps.js';
import { verdictRow } from './verdict-row.js';

/** What reuse reads of the call's run (call.ts CallContext is one). */
interface ReuseContext {
  readonly deps: Pick<LoopDeps, 'hash' | 'store'>;
  readonly run: Pick<RunRow, 'id' | 'snapshot' | 'rerun'>;
}

/** What reuse reads of the call (call.ts CallSpec is one). */
interface ReuseSpec {
  role: Role;
  name: string;
  round: number;
  stage: Stage;
  head: string;
  sample?: number | undefined;
  finish?: ((reply: unknown) => Promise<unknown>) | undefined;
}

/**
 * The call's reuse key, or null when its verdicts are never reused: an agent
 * that reads more than its prompt, or a run that reviews its revision again
 * on purpose (`review --rerun`: a person asked for fresh calls).
 */
export function reuseKeyOf(ctx: ReuseContext, spec: ReuseSpec, promptDigest: string): string | null {
  const { snapshot } = ctx.run;
  if (ctx.run.rerun) return null;
  const agent =
    spec.role === 'reviewer'
      ? snapshot.reviewers.find((r) => r.name === spec.name)
      : spec.role === 'refuter'
        ? snapshot.refuter
        : null;
  if (agent?.reuse !== 'prompt' || !agent.identityDigest) return null;
  // What the endpoint is sent for this sample (a later sample is sent its own seed).
  const sent = samplingOf(snapshot.review, spec.sample);
  return reuseKey(
    {
      repo: snapshot.repo,
      identity: agent.identityDigest,
      name: spec.name,
      role: spec.role,
      promptDigest,
      sampling: { temperature: sent?.temperature ?? null, seed: sent?.seed },
      sample: spec.sample ?? 0,
    },
    ctx.deps.hash,
  );
}

/**
 * The verdict to record for this call from an identical one answered before,
 * or null (none, or its reply does not hold at this revision). It names the
 * call first answered, also when the one found was itself reused.
 */
export async function reusedVerdict(
  ctx: ReuseContext,
  spec: ReuseSpec,
  call: { key: string; promptDigest: string; reuseKey: string },
): Promise<NewVerdict | null> {
  const earlier = await ctx.deps.store.reusableVerdict(ctx.run.snapshot.repo, call.reuseKey);
  if (!earlier || earlier.role !== spec.role || earlier.promptDigest !== call.promptDigest) return null;
  let reply: unknown;
  try {
    reply = spec.finish ? await spec.finish(earlier.reply) : earlier.reply;
  } catch {
    return null;
  }
  return verdictRow(ctx.run, spec, call, {
    modelId: earlier.modelId,
    reply,
    costUsd: 0,
    reusedFrom: await originOf(ctx, earlier),
  });
}

/** The call first answered, with whether its answering attempt ran confined. */
async function originOf(ctx: ReuseContext, v: VerdictRow): Promise<ReusedFrom> {
  if (v.reusedFrom) return v.reusedFrom;
  const attempts = await ctx.deps.store.listAttempts(v.runId);
  const answered = attempts.filter((a) => a.callKey === v.callKey && a.class === 'ok');
  const confined = answered.length > 0 && answered.every((a) => a.confined);
  return { callKey: v.callKey, runId: v.runId, revision: v.revision, confined };
}
