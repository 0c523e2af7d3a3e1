/**
 * The optional judge (docs/eval.md): an agent, configured like a reviewer,
 * asked for each (finding, defect) pair whether the finding describes the
 * known defect. Each decision is recorded in the scratch ledger under its own
 * call key with the prompt digest; a recorded one is used as it is, so an
 * eval on a kept ledger replays without calling the judge again.
 *
 * Transient failures (rate limit, unavailable, timeout, truncation) are tried
 * again up to `retry.attempts`, waiting as the loop's calls do (backoff with
 * jitter, an endpoint's Retry-After); a malformed reply, a refusal or any other
 * failure is never retried: the case is not run, named with the pair.
 */
import type { Hash } from '../core/canonical-json.js';
import { judgeReplySchema } from '../core/replies.js';
import type { JudgeReply } from '../core/types.js';
import { attemptUntilDone } from '../loop/calls/index.js';
import type { Clock, Random } from '../ports/clock.js';
import type { Reviewer } from '../ports/reviewer.js';
import type { JudgementLog } from '../ports/store.js';
import type { EvalFinding } from './case-result.js';
import type { Defect } from './corpus-schema.js';
import { JudgeReplyError } from './errors.js';
import type { JudgeConfig } from './eval-config.js';
import { type JudgePair, judgeCallKey, judgePrompt } from './judge-match.js';

export interface Judge {
  config: JudgeConfig;
  agent: Reviewer;
}

export interface JudgeCaseInput {
  judge: Judge;
  /** The judge records and reads back only its own decisions. */
  store: JudgementLog;
  hash: Hash;
  now: () => number;
  /** Waits between attempts, and draws their jitter: the loop's clock and randomness. */
  clock: Pick<Clock, 'sleep'>;
  random: Random;
  signal?: AbortSignal | undefined;
  caseId: string;
  runId: string;
  base: string;
  head: string;
  /** The case's scratch repository, checked out nowhere in particular: a judge reads only its prompt. */
  repoDir: string;
  findings: readonly EvalFinding[];
  defects: readonly Defect[];
  pairs: readonly JudgePair[];
}

export interface JudgeCaseResult {
  /** Pairs the judge said describe the same defect. */
  yes: JudgePair[];
  /** Judgements made now (the rest were recorded already). */
  called: number;
  costUsd: number;
}

const label = (f: EvalFinding, i: number, d: number) =>
  `finding ${i} (reviewer ${f.reviewer}, ${f.file}:${f.line}) × defects[${d}]`;

/** Judges every pair, recorded decisions first; throws JudgeReplyError naming the case and the pair. */
export async function judgeCase(o: JudgeCaseInput): Promise<JudgeCaseResult> {
  const recorded = new Map((await o.store.listJudgements(o.runId)).map((j) => [j.callKey, j]));
  const yes: JudgePair[] = [];
  let called = 0;
  let costUsd = 0;
  const name = o.judge.config.name;
  for (const p of o.pairs) {
    const f = o.findings[p.finding] as EvalFinding;
    const d = o.defects[p.defect] as Defect;
    const prompt = judgePrompt(o.caseId, f, d, o.hash);
    const promptDigest = o.hash(prompt);
    const callKey = judgeCallKey(
      { runId: o.runId, judge: name, finding: p.finding, defect: p.defect, promptDigest },
      o.hash,
    );
    let reply = recorded.get(callKey)?.reply;
    if (!reply) {
      const res = await callJudge(o, { callKey, prompt, promptDigest }, label(f, p.finding, p.defect));
      called++;
      costUsd += res.costUsd;
      const { judgement } = await o.store.recordJudgement({
        callKey,
        runId: o.runId,
        caseId: o.caseId,
        judge: name,
        finding: p.finding,
        defect: p.defect,
        promptDigest,
        modelId: res.modelId,
        reply: { matches: res.reply.matches, reason: res.reply.reason },
        costUsd: res.costUsd,
      });
      reply = judgement.reply;
    }
    if (reply.matches) yes.push(p);
  }
  return { yes, called, costUsd };
}

async function callJudge(
  o: JudgeCaseInput,
  call: { callKey: string; prompt: string; promptDigest: string },
  what: string,
): Promise<{ reply: JudgeReply; modelId: string | null; costUsd: number }> {
  const { config, agent } = o.judge;
  // The loop's attempts (loop/calls/attempts.ts): backoff with jitter, an endpoint's
  // Retry-After honoured, and a Retry-After past the cap given up on rather than met early.
  const { attempt, res } = await attemptUntilDone({
    from: 1,
    retry: config,
    random: o.random,
    clock: o.clock,
    signal: o.signal,
    attempt: () =>
      agent.call({
        callKey: call.callKey,
        role: 'judge',
        name: config.name,
        round: 1,
        prompt: call.prompt,
        promptDigest: call.promptDigest,
        base: o.base,
        head: o.head,
        repoDir: o.repoDir,
        deadlineMs: o.now() + config.callSeconds * 1000,
      }),
  });
  if (!res.ok)
    throw new JudgeReplyError(
      o.caseId,
      `${what}: ${res.class}${attempt > 1 ? ` after ${attempt} attempts` : ''}: ${res.detail}`,
    );
  // The adapter validated it against the judge's schema; parsed again only to be typed, never cast.
  const reply = judgeReplySchema.safeParse(res.reply);
  if (!reply.success) throw new JudgeReplyError(o.caseId, `${what}: malformed: ${reply.error.message}`);
  return { reply: reply.data, modelId: res.modelId, costUsd: res.costUsd };
}
