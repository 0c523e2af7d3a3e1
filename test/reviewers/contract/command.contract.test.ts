/** The command adapter under the Reviewer port contract, with a real stand-in agent process. */
import { join } from 'node:path';
import { expect } from 'vitest';
import type { ReviewerConfig } from '../../../src/core/config.js';
import type { CallRequest } from '../../../src/ports/reviewer.js';
import { createCommandReviewer, readPlainReply } from '../../../src/reviewers/command.js';
import { createReviewer } from '../../../src/reviewers/index.js';
import {
  AGENTS,
  callRequest,
  standInConfig as cfg,
  cleanupDirs,
  reviewerContext as ctx,
  tempDir,
} from '../call-request.js';
import { detailHas, runReviewerContract } from './reviewer-contract.js';

const script = join(AGENTS, 'reviewer.mjs');
const call = (
  mode: string,
  over: Partial<ReviewerConfig> = {},
  env?: NodeJS.ProcessEnv,
  req?: Partial<CallRequest>,
) => createReviewer(cfg(mode, over), ctx(env)).call(callRequest(req));
/** The adapter with a short TERM-to-KILL grace, so a hanging agent's test does not wait 2 s for it. */
const quickKill = (mode: string, more: { maxStdoutBytes?: number } = {}) =>
  createCommandReviewer(cfg(mode), ctx(), {
    argv: [script, mode],
    read: readPlainReply,
    killGraceMs: 100,
    ...more,
  });

const SECRET = 'sk-test-SECRET-0123456789';

runReviewerContract<null>({
  adapter: 'command',
  setup: async () => null,
  teardown: async () => cleanupDirs(),
  faults: {
    reply: [
      {
        name: 'exit 0 with a valid reply, its model and cost',
        call: () => call('pass', {}, { ...process.env, STANDIN_MODEL: 'm-1' }),
        check: (r) =>
          expect(r).toEqual({
            ok: true,
            reply: expect.objectContaining({ verdict: 'pass' }),
            modelId: 'm-1',
            costUsd: 0.25,
          }),
      },
      {
        name: 'a fenced ```json block',
        call: () => call('fenced'),
        check: (r) => expect(r).toMatchObject({ reply: { verdict: 'pass' } }),
      },
      {
        name: 'a findings reply naming no model',
        call: () => call('findings'),
        check: (r) => expect(r).toMatchObject({ reply: { verdict: 'findings' }, modelId: null, costUsd: 0 }),
      },
      {
        name: 'the pinned model served',
        call: () => call('pass', { model: 'served-2' }, { ...process.env, STANDIN_MODEL: 'served-2' }),
        check: (r) => expect(r).toMatchObject({ modelId: 'served-2' }),
      },
    ],
    rate_limited: {
      skip: 'a plain command has no rate-limit signal: exit 75 (unavailable) is its one retryable exit; an agent CLI reporting 429 is the claude-code and codex presets',
    },
    unavailable: [{ name: 'exit 75', call: () => call('exit75'), check: detailHas('upstream busy') }],
    connection: {
      skip: 'revloop opens no connection for a command: the agent does, and says it failed with exit 75 (unavailable) or another exit (failed)',
    },
    timeout: [
      {
        name: 'a hanging agent (TERM ignored) killed at the deadline',
        call: () => quickKill('hang').call(callRequest({ repoDir: tempDir(), deadlineMs: Date.now() + 300 })),
      },
      {
        name: 'a deadline already passed',
        call: () => quickKill('hang').call(callRequest({ deadlineMs: Date.now() - 1 })),
      },
    ],
    truncated: {
      skip: 'a plain command reports no finish reason: a reply cut short is output that fails the schema (malformed), never a pass',
    },
    malformed: [
      { name: 'output that is not JSON', call: () => call('not-json'), check: detailHas('not JSON') },
      { name: 'empty output', call: () => call('empty'), check: detailHas('empty output') },
      {
        name: 'a reply that fails the schema',
        call: () => call('schema-break'),
        check: detailHas('$.findings.0.severity'),
      },
      {
        name: 'a finding whose path escapes the repository',
        call: () => call('path-escape'),
        check: detailHas('escapes the repository'),
      },
      {
        name: 'stdout over the cap',
        call: () => quickKill('huge', { maxStdoutBytes: 1024 * 1024 }).call(callRequest()),
        check: detailHas('too large'),
      },
    ],
    refused: {
      skip: 'a plain command has no refusal signal: a refusal is text that fails the reply schema (malformed), never a pass',
    },
    missing_context: [
      {
        name: 'the checkout does not exist',
        call: () => call('pass', {}, undefined, { repoDir: '/nonexistent/revloop' }),
      },
    ],
    model_drift: [
      {
        name: 'a reply naming another model than the pin',
        call: () => call('pass', { model: 'pinned-1' }, { ...process.env, STANDIN_MODEL: 'served-2' }),
      },
    ],
    failed: [
      {
        name: 'exit 3, with the stderr tail',
        call: () => call('exit3'),
        check: detailHas(/exited with code 3: boom/),
      },
      {
        name: 'an API key the agent prints to stderr is redacted',
        call: () => call('exit3', {}, { ...process.env, OPENAI_API_KEY: SECRET }),
        check: (r) => {
          expect(JSON.stringify(r)).not.toContain(SECRET);
          detailHas('[redacted]')(r);
        },
      },
      {
        name: 'the executable does not exist',
        call: () =>
          createReviewer(
            { name: 'x', adapter: 'command', command: ['revloop-no-such-tool-42'] },
            { ...ctx(), name: 'x' },
          ).call(callRequest({ name: 'x' })),
        check: (r) =>
          expect(r).toEqual({
            ok: false,
            class: 'failed',
            detail: 'reviewer "x": command not found: revloop-no-such-tool-42',
          }),
      },
    ],
    interrupted: [
      {
        name: 'revloop aborts a hanging agent',
        call: () => {
          const ac = new AbortController();
          setTimeout(() => ac.abort(), 200);
          return quickKill('hang').call(callRequest({ repoDir: tempDir(), signal: ac.signal }));
        },
        check: detailHas('interrupted'),
      },
    ],
  },
});
