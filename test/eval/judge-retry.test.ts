/**
 * The eval judge waits between attempts as the loop's calls do (core/retry-
 * policy.ts): backoff with jitter, an endpoint's Retry-After honoured, and a
 * Retry-After past the cap given up on. It used to call again at once, so a
 * rate-limited judge spent its attempts inside the limit's window. The clock
 * and randomness are passed in: what it waited is read, never timed.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { EvalFinding } from '../../src/eval/case-result.js';
import type { Defect } from '../../src/eval/corpus-schema.js';
import { JudgeReplyError } from '../../src/eval/errors.js';
import { judgeCase } from '../../src/eval/judge.js';
import type { CallResult, Reviewer } from '../../src/ports/reviewer.js';
import { MemoryStore } from '../../src/store/memory.js';
import { admitInput } from '../store/fixtures/data.js';

const finding: EvalFinding = {
  reviewer: 'r',
  severity: 'MAJOR',
  file: 'a.js',
  line: 3,
  claim: 'the total can go negative',
  refuted: false,
  blocking: true,
} as EvalFinding;
const defect: Defect = { description: 'a deposit is not checked', severity: 'MAJOR' };

async function judgeWith(replies: CallResult[], draw = 0) {
  const store = new MemoryStore();
  const admitted = await store.admit(admitInput());
  if (admitted.kind === 'deferred') throw new Error('not admitted');
  const run = admitted.run;
  const sleeps: number[] = [];
  let calls = 0;
  const agent: Reviewer = {
    name: 'judge',
    usesCheckout: false,
    call: async () => replies[Math.min(calls++, replies.length - 1)] as CallResult,
  };
  const run$ = judgeCase({
    judge: {
      config: {
        name: 'judge',
        agent: {},
        dir: '/',
        callSeconds: 60,
        attempts: 3,
        baseDelayMs: 200,
        maxDelayMs: 1000,
      },
      agent,
    } as Parameters<typeof judgeCase>[0]['judge'],
    store,
    hash: (d) => createHash('sha256').update(d).digest('hex'),
    now: () => 0,
    clock: { sleep: async (ms: number) => void sleeps.push(ms) },
    random: { next: () => draw },
    caseId: 'case-1',
    runId: run.id,
    base: 'b',
    head: 'h',
    repoDir: '/nowhere',
    findings: [finding],
    defects: [defect],
    pairs: [{ finding: 0, defect: 0 }],
  });
  return { run$, sleeps, calls: () => calls };
}

const yes: CallResult = {
  ok: true,
  reply: { matches: true, reason: 'same defect' },
  modelId: null,
  costUsd: 0,
};

describe('the eval judge retries as the loop does', () => {
  it("waits the endpoint's Retry-After before calling again", async () => {
    const j = await judgeWith([{ ok: false, class: 'rate_limited', detail: '429', retryAfterMs: 700 }, yes]);
    const res = await j.run$;
    expect(res.yes).toHaveLength(1);
    expect(j.calls()).toBe(2);
    expect(j.sleeps).toEqual([700]);
  });

  it('backs off with jitter between attempts, growing with each', async () => {
    const down: CallResult = { ok: false, class: 'unavailable', detail: '503' };
    const j = await judgeWith([down, down, yes], 0.5);
    await j.run$;
    expect(j.sleeps).toEqual([100, 200]);
  });

  it('a Retry-After past the cap is given up on, not met early', async () => {
    const j = await judgeWith([{ ok: false, class: 'rate_limited', detail: '429', retryAfterMs: 5000 }, yes]);
    await expect(j.run$).rejects.toBeInstanceOf(JudgeReplyError);
    expect(j.calls()).toBe(1);
    expect(j.sleeps).toEqual([]);
  });
});
