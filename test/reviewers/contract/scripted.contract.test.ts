/**
 * The scripted adapter under the Reviewer port contract. Its faults are what
 * a script says (an `error` entry), so the contract pins that each scripted
 * error is that class; the faults the adapter itself detects (a deadline, a
 * drifted model, a bad reply, no entry, an unreadable script) are real.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { AgentConfig } from '../../../src/core/config.js';
import type { CallRequest, CallResult } from '../../../src/ports/reviewer.js';
import { createReviewer } from '../../../src/reviewers/index.js';
import { callRequest, cleanupDirs, tempDir } from '../call-request.js';
import { detailHas, retryAfter, runReviewerContract } from './reviewer-contract.js';

/** A reviewer over `entry` as its one scripted answer (for round `key`, default every round), in a fresh repository root. */
function scripted(
  entry: unknown,
  over: Partial<CallRequest> = {},
  model?: string,
  key = '*',
): Promise<CallResult> {
  const root = tempDir();
  mkdirSync(join(root, '.revloop'));
  writeFileSync(join(root, '.revloop', 'script.json'), JSON.stringify({ correctness: { [key]: entry } }));
  const cfg: AgentConfig = {
    adapter: 'scripted',
    script: '.revloop/script.json',
    ...(model ? { model } : {}),
  };
  return createReviewer(cfg, { role: 'reviewer', name: 'correctness', repoRoot: root, env: {} }).call(
    callRequest({ repoDir: root, ...over }),
  );
}
const PASS = { verdict: 'pass', findings: [] };

runReviewerContract<null>({
  adapter: 'scripted',
  setup: async () => null,
  teardown: async () => cleanupDirs(),
  faults: {
    reply: [
      {
        name: 'a scripted reply with its model and cost',
        call: () => scripted({ reply: { ...PASS, model: 'scripted-1', usage: { costUsd: 0.5 } } }),
        check: (r) => expect(r).toMatchObject({ ok: true, modelId: 'scripted-1', costUsd: 0.5 }),
      },
      { name: 'a reply given as text', call: () => scripted({ reply: JSON.stringify(PASS) }) },
    ],
    rate_limited: [
      {
        name: 'a scripted rate_limited error with its Retry-After',
        call: () => scripted({ error: 'rate_limited', retryAfterMs: 1500 }),
        check: retryAfter((ms) => expect(ms).toBe(1500)),
      },
    ],
    unavailable: [{ name: 'a scripted unavailable error', call: () => scripted({ error: 'unavailable' }) }],
    connection: {
      skip: 'a script makes no connection (replies come from a file); an outage is scripted as an unavailable error, the row above',
    },
    timeout: [
      {
        name: 'a scripted delay past the deadline',
        call: () => scripted({ delayMs: 60_000, reply: PASS }, { deadlineMs: Date.now() + 200 }),
      },
      { name: 'a scripted timeout error', call: () => scripted({ error: 'timeout' }) },
    ],
    truncated: [{ name: 'a scripted truncated error', call: () => scripted({ error: 'truncated' }) }],
    malformed: [
      { name: 'a reply that is not JSON', call: () => scripted({ reply: 'Looks good!' }) },
      {
        name: 'a reply that fails the schema',
        call: () => scripted({ reply: { verdict: 'maybe', findings: [] } }),
        check: detailHas('$.verdict'),
      },
      {
        name: 'a write that escapes the repository',
        call: () => scripted({ write: { '../outside.txt': 'x' }, reply: PASS }),
        check: detailHas('escapes the repository'),
      },
      { name: 'an entry with neither reply nor error', call: () => scripted({ delayMs: 1 }) },
    ],
    refused: [{ name: 'a scripted refused error', call: () => scripted({ error: 'refused' }) }],
    missing_context: [
      {
        name: 'no scripted reply for this reviewer and round',
        call: () => scripted({ reply: PASS }, { round: 3 }, undefined, '1'),
        check: (r) =>
          expect(r).toEqual({
            ok: false,
            class: 'missing_context',
            detail: 'reviewer "correctness": no scripted reply for reviewer correctness round 3',
          }),
      },
      {
        name: 'no entry whose "when" is in the prompt',
        call: () => scripted({ when: 'NEVER IN THE PROMPT', reply: PASS }),
        check: detailHas('no scripted reply'),
      },
    ],
    model_drift: [
      {
        name: 'a reply naming another model than the pin',
        call: () => scripted({ reply: { ...PASS, model: 'other-model' } }, {}, 'pinned-model'),
      },
    ],
    failed: [
      {
        name: 'the script file cannot be read',
        call: () =>
          createReviewer(
            { adapter: 'scripted', script: '/nonexistent/revloop/script.json' },
            { role: 'reviewer', name: 'correctness', repoRoot: '/', env: {} },
          ).call(callRequest()),
        check: detailHas('cannot read script'),
      },
    ],
    interrupted: [
      {
        name: 'revloop aborts a scripted delay',
        call: () => {
          const ac = new AbortController();
          setTimeout(() => ac.abort(), 100);
          return scripted({ delayMs: 60_000, reply: PASS }, { signal: ac.signal });
        },
        check: detailHas('interrupted'),
      },
    ],
  },
});
