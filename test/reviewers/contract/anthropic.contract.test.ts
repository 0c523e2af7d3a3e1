/** The anthropic adapter under the Reviewer port contract, against the loopback fault server. */
import { expect } from 'vitest';
import type { ReviewerConfig } from '../../../src/core/config.js';
import type { CallResult } from '../../../src/ports/reviewer.js';
import { createReviewer } from '../../../src/reviewers/index.js';
import { type FaultServer, faults, startFaultServer } from '../../helpers/fault-server.js';
import { anthropicConfig } from '../api-configs.js';
import { callRequest, closedPort } from '../call-request.js';
import { abortedStall, afterFault, type CallOpts, closeServer } from './fault-server-variants.js';
import { detailHas, retryAfter, runReviewerContract } from './reviewer-contract.js';

const KEY = 'sk-ant-contract-0123456789abcdef';
const UPHELD = { decision: 'upheld', reason: 'the race is real' };

// A refuter here (the openai file calls a reviewer), so both roles' schemas meet the contract.
function call(server: FaultServer, o: CallOpts<ReviewerConfig> = {}): Promise<CallResult> {
  return createReviewer(anthropicConfig(server, o.over), {
    role: 'refuter',
    name: 'refuter',
    repoRoot: '/',
    env: { ANTHROPIC_API_KEY: KEY },
  }).call(
    callRequest({
      role: 'refuter',
      name: 'refuter',
      deadlineMs: Date.now() + (o.deadlineInMs ?? 10_000),
      ...(o.signal ? { signal: o.signal } : {}),
    }),
  );
}
const after = afterFault(call);

runReviewerContract<FaultServer>({
  adapter: 'anthropic',
  setup: startFaultServer,
  teardown: closeServer,
  faults: {
    reply: [
      {
        name: 'a streamed reply, the served model and the tokens priced',
        call: after(faults.json(UPHELD)),
        check: (r) =>
          expect(r).toEqual({
            ok: true,
            reply: UPHELD,
            modelId: 'claude-pinned',
            costUsd: (1000 * 3 + 500 * 15) / 1e6,
            // How the reply was asked for and its tokens, recorded on the attempt (issue 17).
            note: expect.stringMatching(/tokens: input 1000 uncached/),
          }),
      },
    ],
    rate_limited: [
      {
        name: '429 with Retry-After; one request per call',
        call: async (server) => {
          const before = server.requests.length;
          const r = await after(faults.rateLimited('3'))(server);
          expect(server.requests.length - before).toBe(1);
          return r;
        },
        check: retryAfter((ms) => expect(ms).toBe(3000)),
      },
    ],
    unavailable: [
      { name: 'HTTP 529 overloaded_error', call: after(faults.status(529, 'overloaded_error')) },
      { name: 'HTTP 503', call: after(faults.status(503)) },
      {
        name: 'an overloaded_error event mid-stream',
        call: after(faults.errorEvent('overloaded_error')),
        check: detailHas('overloaded_error'),
      },
    ],
    connection: [
      { name: 'socket reset before a response', call: after(faults.resetBefore()) },
      {
        name: 'connection refused (closed port)',
        call: async (server) => call(server, { over: { baseURL: `http://127.0.0.1:${await closedPort()}` } }),
      },
    ],
    timeout: [
      { name: 'a stalled endpoint, 400 ms deadline', call: after(faults.stall(), { deadlineInMs: 400 }) },
    ],
    truncated: [
      { name: 'stream reset mid-reply', call: after(faults.resetMidStream()) },
      { name: 'stream cut before message_stop', call: after(faults.cut()), check: detailHas('message_stop') },
      { name: 'stop_reason "max_tokens"', call: after(faults.truncated()), check: detailHas('max_tokens') },
    ],
    malformed: [
      {
        name: 'content that is not JSON',
        call: after(faults.ok('{"decision": "upheld"')),
        check: detailHas('not JSON'),
      },
      {
        name: 'JSON that fails the refuter schema',
        call: after(faults.json({ decision: 'upheld', reason: '' })),
        check: detailHas('$.reason'),
      },
    ],
    refused: [{ name: 'stop_reason "refusal"', call: after(faults.refusal()) }],
    missing_context: [
      {
        name: 'the configured API key variable is not set (another one is)',
        call: (server) => call(server, { over: { apiKeyEnv: 'MY_ANTHROPIC_KEY' } }),
        check: (r) => {
          detailHas('MY_ANTHROPIC_KEY')(r);
          expect(JSON.stringify(r)).not.toContain(KEY);
        },
      },
    ],
    model_drift: [
      {
        name: 'the endpoint serves another model than the pin',
        call: after(faults.json(UPHELD, 'claude-other')),
        check: detailHas('claude-other'),
      },
    ],
    failed: [
      {
        name: 'HTTP 401 authentication_error echoing the key: the key is redacted',
        call: after(faults.status(401, 'authentication_error', `invalid x-api-key ${KEY}`)),
        check: (r) => expect(JSON.stringify(r)).not.toContain(KEY),
      },
    ],
    interrupted: [abortedStall(call)],
  },
});
