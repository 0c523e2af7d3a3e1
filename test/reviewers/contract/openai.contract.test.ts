/** The openai adapter under the Reviewer port contract, against the loopback fault server. */
import { expect } from 'vitest';
import type { ReviewerConfig } from '../../../src/core/config.js';
import type { CallResult } from '../../../src/ports/reviewer.js';
import { createReviewer } from '../../../src/reviewers/index.js';
import { type FaultServer, faults, startFaultServer } from '../../helpers/fault-server.js';
import { openaiConfig } from '../api-configs.js';
import { callRequest, closedPort } from '../call-request.js';
import { abortedStall, afterFault, type CallOpts, closeServer } from './fault-server-variants.js';
import { detailHas, retryAfter, runReviewerContract } from './reviewer-contract.js';

const KEY = 'sk-contract-openai-0123456789abcdef';
const PASS = { verdict: 'pass', findings: [] };

function call(server: FaultServer, o: CallOpts<ReviewerConfig> = {}): Promise<CallResult> {
  return createReviewer(openaiConfig(server, o.over), {
    role: 'reviewer',
    name: 'standards',
    repoRoot: '/',
    env: o.env ?? { REVLOOP_TEST_OPENAI_KEY: KEY },
  }).call(
    callRequest({
      name: 'standards',
      deadlineMs: Date.now() + (o.deadlineInMs ?? 10_000),
      ...(o.signal ? { signal: o.signal } : {}),
    }),
  );
}
/** One queued fault, then one call. */
const after = afterFault(call);

runReviewerContract<FaultServer>({
  adapter: 'openai',
  setup: startFaultServer,
  teardown: closeServer,
  faults: {
    reply: [
      {
        name: 'a streamed reply, the served model and the tokens priced',
        call: after(faults.json(PASS)),
        check: (r) =>
          expect(r).toEqual({
            ok: true,
            reply: PASS,
            modelId: 'gpt-pinned',
            costUsd: (1000 * 2 + 500 * 8) / 1e6,
            // How the reply was asked for and its tokens, recorded on the attempt (issue 17).
            note: expect.stringMatching(/^structured output .*tokens: input 1000 uncached/),
          }),
      },
      {
        name: 'no pin: another served model is accepted and recorded',
        call: after(faults.json(PASS, 'gpt-other'), { over: { model: 'gpt-other' } }),
        check: (r) => expect(r).toMatchObject({ modelId: 'gpt-other' }),
      },
    ],
    rate_limited: [
      {
        name: '429 with Retry-After in seconds',
        call: after(faults.rateLimited('7')),
        check: retryAfter((ms) => expect(ms).toBe(7000)),
      },
      {
        name: '429 with Retry-After as an HTTP date',
        // The date is taken at call time: 30 s ahead then, whenever the test runs.
        call: (server) => after(faults.rateLimited(new Date(Date.now() + 30_000).toUTCString()))(server),
        check: retryAfter((ms) => expect(ms).toBeGreaterThan(25_000)),
      },
      {
        name: '429 without Retry-After',
        call: after(faults.rateLimited()),
        check: retryAfter((ms) => expect(ms).toBeUndefined()),
      },
    ],
    unavailable: [
      { name: 'HTTP 503', call: after(faults.status(503)) },
      { name: 'HTTP 500', call: after(faults.status(500)) },
    ],
    connection: [
      { name: 'socket reset before a response', call: after(faults.resetBefore()) },
      {
        name: 'connection refused (closed port)',
        call: async (server) =>
          call(server, { over: { baseURL: `http://127.0.0.1:${await closedPort()}/v1` } }),
      },
    ],
    timeout: [
      {
        name: 'a stalled endpoint, 400 ms deadline',
        call: async (server) => {
          const t0 = Date.now();
          const r = await after(faults.stall(), { deadlineInMs: 400 })(server);
          // The endpoint never answers: anything near the deadline, with room for a loaded machine.
          expect(Date.now() - t0).toBeLessThan(20_000);
          return r;
        },
      },
    ],
    truncated: [
      { name: 'stream reset mid-reply', call: after(faults.resetMidStream()) },
      {
        name: 'stream cut before a finish reason',
        call: after(faults.cut()),
        check: detailHas('finish reason'),
      },
      { name: 'finish_reason "length"', call: after(faults.truncated()), check: detailHas('length') },
    ],
    malformed: [
      {
        name: 'content that is not JSON',
        call: after(faults.ok('Looks good!')),
        check: detailHas('not JSON'),
      },
      {
        name: 'JSON that fails the reply schema',
        call: after(faults.json({ verdict: 'maybe', findings: [] })),
        check: detailHas('$.verdict'),
      },
    ],
    refused: [
      { name: 'a refusal delta', call: after(faults.refusal()) },
      { name: 'finish_reason "content_filter"', call: after(faults.contentFilter()) },
    ],
    missing_context: [
      {
        name: 'the API key variable is not set: nothing is sent',
        call: async (server) => {
          const before = server.requests.length;
          const r = await call(server, { env: {} });
          expect(server.requests.length).toBe(before);
          return r;
        },
        check: (r) =>
          expect(r).toEqual({
            ok: false,
            class: 'missing_context',
            detail: 'reviewer "standards": API key variable REVLOOP_TEST_OPENAI_KEY is not set',
          }),
      },
    ],
    model_drift: [
      {
        name: 'the endpoint serves another model than the pin',
        call: after(faults.json(PASS, 'gpt-other')),
        check: detailHas('gpt-other'),
      },
    ],
    failed: [
      {
        name: 'HTTP 401 echoing the key: the key is redacted',
        call: after(faults.status(401, 'invalid_api_key', `Incorrect API key provided: ${KEY}`)),
        check: (r) => expect(JSON.stringify(r)).not.toContain(KEY),
      },
    ],
    interrupted: [abortedStall(call)],
  },
});
