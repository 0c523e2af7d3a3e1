/**
 * Reuse never guesses: through the real call path (callAgent) and the real
 * memory and SQLite stores, a second call reuses the first one's verdict
 * exactly when its complete input is the same (prompt bytes, the agent's
 * identity, its name, the sampling, the sample's index, the repository), and
 * never when any of it differs, when the agent did not declare its input is
 * the prompt, or when the first call gave no verdict (invariant 1). Reviewer
 * and refuter calls alike.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import type { Snapshot } from '../../src/core/types.js';
import { sha256 } from '../../src/io/hash.js';
import { type CallContext, callAgent, LedgerCache } from '../../src/loop/calls/index.js';
import type { CallResult, Reviewer } from '../../src/ports/reviewer.js';
import type { Store } from '../../src/ports/store.js';
import { openStore } from '../../src/store/index.js';
import { MemoryStore } from '../../src/store/memory.js';
import { admitInput, owner, snapshot, uid } from '../store/fixtures/data.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

interface Input {
  role: 'reviewer' | 'refuter';
  repo: string;
  identity: string;
  name: string;
  reuse: boolean;
  temperature: number;
  sample: number;
  prompt: string;
}

const DIFFERS = [
  'prompt',
  'identity',
  'name',
  'role',
  'temperature',
  'sample',
  'repo',
  'undeclared',
] as const;

function reviewer(answer: CallResult): Reviewer & { calls: number } {
  return {
    name: 'r',
    usesCheckout: false,
    calls: 0,
    async call() {
      this.calls++;
      return answer;
    },
  };
}

async function callOnce(store: Store, input: Input, agent: Reviewer) {
  const agentSpec = {
    name: input.name,
    adapter: 'command' as const,
    promptTemplateDigest: 'sha256:p',
    identityDigest: input.identity,
    ...(input.reuse ? { reuse: 'prompt' as const } : {}),
  };
  const snap: Snapshot = snapshot({
    repo: input.repo,
    reviewers: input.role === 'reviewer' ? [agentSpec] : [],
    refuter: input.role === 'refuter' ? agentSpec : null,
    retry: { attempts: 1, baseDelayMs: 1, maxDelayMs: 1 },
    review: { contextBytes: 0, temperature: input.temperature, concurrency: null, chunkBytes: 200_000 },
  });
  const admitted = await store.admit(admitInput({ repo: input.repo, snapshot: snap }));
  if (admitted.kind !== 'created') throw new Error('not created');
  const lease = await store.acquireLease(admitted.run.id, owner('w'), 60_000);
  if (!lease) throw new Error('no lease');
  const ctx: CallContext = {
    deps: {
      hash: sha256,
      clock: { now: () => 1_000, sleep: async () => undefined },
      random: { next: () => 0.5 },
      signal: undefined,
      store,
    },
    run: admitted.run,
    ledger: new LedgerCache({ verdicts: [], attempts: [], stages: [] }),
    budget: { check() {}, wallDeadline: () => Number.MAX_SAFE_INTEGER },
    freeze: { noteAttempt() {} },
    sideWork: { callStarted() {} },
    judge: null,
    savePrompt: async () => undefined,
  };
  const out = await callAgent(ctx, lease, {
    role: input.role,
    name: input.name,
    round: 1,
    stage: input.role === 'reviewer' ? 'review' : 'refute',
    prompt: input.prompt,
    sample: input.sample,
    reviewer: agent,
    head: 'h'.repeat(40),
    repoDir: '/nonexistent',
  });
  return { out, runId: admitted.run.id };
}

function changed(a: Input, what: (typeof DIFFERS)[number], at: number): Input {
  switch (what) {
    case 'prompt': {
      // One byte differs (or one more byte), anywhere.
      const i = at % (a.prompt.length + 1);
      const c = a.prompt.charCodeAt(i);
      const flipped = Number.isNaN(c) ? 'x' : String.fromCharCode(c === 0x61 ? 0x62 : 0x61);
      return { ...a, prompt: a.prompt.slice(0, i) + flipped + a.prompt.slice(i + 1) };
    }
    case 'identity':
      return { ...a, identity: `${a.identity}'` };
    case 'name':
      return { ...a, name: `${a.name}2` };
    case 'role':
      return { ...a, role: a.role === 'reviewer' ? 'refuter' : 'reviewer' };
    case 'temperature':
      return { ...a, temperature: a.temperature === 0 ? 0.5 : 0 };
    case 'sample':
      return { ...a, sample: a.sample + 1 };
    case 'repo':
      return { ...a, repo: `${a.repo}-fork` };
    case 'undeclared':
      return { ...a, reuse: false };
  }
}

const input = fc.record({
  role: fc.constantFrom('reviewer' as const, 'refuter' as const),
  repo: fc.constantFrom('git@example.invalid:acme/a', 'https://example.invalid/acme/b'),
  identity: fc.string({ minLength: 1, maxLength: 12 }).map((s) => `sha256:${s}`),
  name: fc.constantFrom('correctness', 'standards'),
  reuse: fc.constant(true),
  temperature: fc.constantFrom(0, 0.7),
  sample: fc.nat(3),
  prompt: fc.string({ minLength: 0, maxLength: 200, unit: 'binary' }),
});

const answer = (role: Input['role']): CallResult => ({
  ok: true,
  reply: role === 'reviewer' ? { verdict: 'pass', findings: [] } : { decision: 'upheld', reason: 'it holds' },
  modelId: 'm-1',
  costUsd: 0.01,
});

function suite(name: string, open: () => Promise<Store>) {
  describe(`verdict reuse on the ${name} store`, () => {
    it('property: reused exactly when every byte of the input is the same, at $0, naming the first call', async () => {
      await fc.assert(
        fc.asyncProperty(
          input,
          fc.option(fc.constantFrom(...DIFFERS), { nil: undefined }),
          fc.nat(),
          fc.boolean(),
          async (a, differs, at, firstFailed) => {
            const store = await open();
            try {
              const first = reviewer(
                firstFailed
                  ? { ok: false, class: 'malformed', detail: 'not JSON', costUsd: 0.01 }
                  : answer(a.role),
              );
              const one = await callOnce(store, a, first);
              expect(one.out.ok).toBe(!firstFailed);
              const b = differs ? changed(a, differs, at) : a;
              const second = reviewer(answer(b.role));
              const two = await callOnce(store, b, second);
              if (!two.out.ok) throw new Error('the second call failed');
              const reuse = differs === undefined && !firstFailed;
              expect(second.calls).toBe(reuse ? 0 : 1);
              const v = two.out.verdict;
              if (reuse && one.out.ok) {
                expect(v.reusedFrom).toEqual({
                  callKey: one.out.verdict.callKey,
                  runId: one.runId,
                  revision: 'h'.repeat(40),
                  // The first call's attempt ran unconfined here: the record must not call the reuse confined.
                  confined: false,
                });
                expect(v.costUsd).toBe(0);
                expect(v.reply).toEqual(one.out.verdict.reply);
                expect((await store.getRun(two.runId))?.costUsd).toBe(0);
                expect(await store.listAttempts(two.runId)).toEqual([]);
              } else {
                expect(v.reusedFrom).toBeUndefined();
                expect(v.costUsd).toBe(0.01);
              }
            } finally {
              await store.close();
            }
          },
        ),
        { numRuns: name === 'memory' ? 400 : 60 },
      );
    }, 120_000);
  });
}

suite('memory', async () => new MemoryStore());
suite('SQLite', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'revloop-reuse-'));
  dirs.push(dir);
  return openStore(`sqlite:${join(dir, `${uid('l')}.db`)}`, { repoRoot: dir });
});
