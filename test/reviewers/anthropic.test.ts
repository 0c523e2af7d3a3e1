import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ReviewerConfig } from '../../src/core/config.js';
import type { CallResult } from '../../src/ports/reviewer.js';
import { createReviewer } from '../../src/reviewers/index.js';
import { type FaultServer, faults, startFaultServer } from '../helpers/fault-server.js';
import { callRequest, cleanupDirs, closedPort } from './call-request.js';

const KEY = 'sk-ant-fault-test-0123456789abcdef';
const UPHELD = { decision: 'upheld', reason: 'the race is real' };
let server: FaultServer;

beforeAll(async () => {
  server = await startFaultServer();
});
afterAll(async () => {
  await server.close();
  cleanupDirs();
});
beforeEach(() => {
  server.requests.length = 0;
});

const cfg = (over: Partial<ReviewerConfig> = {}): ReviewerConfig => ({
  name: 'refuter',
  adapter: 'anthropic',
  baseURL: server.anthropicBaseURL,
  model: 'claude-pinned',
  prices: { inputPerMTok: 3, outputPerMTok: 15 },
  ...over,
});
const env = { ANTHROPIC_API_KEY: KEY };
const call = (over: Partial<ReviewerConfig> = {}, deadlineInMs = 10_000): Promise<CallResult> =>
  createReviewer(cfg(over), { role: 'refuter', name: 'refuter', repoRoot: '/', env }).call(
    callRequest({ role: 'refuter', name: 'refuter', deadlineMs: Date.now() + deadlineInMs }),
  );

describe('anthropic adapter against the fault server', () => {
  it('streams a reply, reports the served model and prices the tokens', async () => {
    server.push(faults.json(UPHELD));
    const r = await call();
    expect(r).toEqual({
      ok: true,
      reply: UPHELD,
      modelId: 'claude-pinned',
      costUsd: (1000 * 3 + 500 * 15) / 1e6,
      // The fault server answers in text whatever the request forces: the attempt says so.
      note: expect.stringContaining('the endpoint answered in text'),
    });
    const [req] = server.requests;
    expect(req?.path).toBe('/v1/messages');
    // This SDK version authenticates with a bearer header; older ones used x-api-key. Either, and nowhere else.
    const auth = [req?.headers['x-api-key'], req?.headers.authorization];
    expect(auth.some((h) => h === KEY || h === `Bearer ${KEY}`)).toBe(true);
    const others = Object.entries(req?.headers ?? {}).filter(
      ([h]) => h !== 'x-api-key' && h !== 'authorization',
    );
    expect(JSON.stringify(others) + (req?.body ?? '')).not.toContain(KEY);
    expect(JSON.parse(req?.body ?? '{}')).toMatchObject({
      model: 'claude-pinned',
      stream: true,
      max_tokens: 8192,
    });
  });

  it('429 is rate_limited with Retry-After; one request per call', async () => {
    server.push(faults.rateLimited('3'));
    expect(await call()).toMatchObject({ ok: false, class: 'rate_limited', retryAfterMs: 3000 });
    expect(server.requests).toHaveLength(1);
  });

  it('529, 503 and an overloaded_error event are unavailable', async () => {
    server.push(
      faults.status(529, 'overloaded_error'),
      faults.status(503),
      faults.errorEvent('overloaded_error'),
    );
    expect(await call()).toMatchObject({ ok: false, class: 'unavailable' });
    expect(await call()).toMatchObject({ ok: false, class: 'unavailable' });
    expect(await call()).toMatchObject({
      ok: false,
      class: 'unavailable',
      detail: expect.stringContaining('overloaded_error'),
    });
  });

  it('a reset before the response or a closed port is unavailable', async () => {
    server.push(faults.resetBefore());
    expect(await call()).toMatchObject({ ok: false, class: 'unavailable' });
    expect(await call({ baseURL: `http://127.0.0.1:${await closedPort()}` })).toMatchObject({
      ok: false,
      class: 'unavailable',
    });
  });

  it('a stream reset or cut before message_stop is truncated; max_tokens is truncated', async () => {
    server.push(faults.resetMidStream(), faults.cut(), faults.truncated());
    expect(await call()).toMatchObject({ ok: false, class: 'truncated' });
    expect(await call()).toMatchObject({
      ok: false,
      class: 'truncated',
      detail: expect.stringContaining('message_stop'),
    });
    expect(await call()).toMatchObject({
      ok: false,
      class: 'truncated',
      detail: expect.stringContaining('max_tokens'),
    });
  });

  it('stop_reason "refusal" is refused', async () => {
    server.push(faults.refusal());
    expect(await call()).toMatchObject({ ok: false, class: 'refused' });
  });

  it('another served model is model drift', async () => {
    server.push(faults.json(UPHELD, 'claude-other'));
    expect(await call()).toMatchObject({ ok: false, class: 'model_drift' });
  });

  it('content that is not a valid reply is malformed', async () => {
    server.push(faults.ok('{"decision": "upheld"'), faults.json({ decision: 'upheld', reason: '' }));
    expect(await call()).toMatchObject({
      ok: false,
      class: 'malformed',
      detail: expect.stringContaining('not JSON'),
    });
    expect(await call()).toMatchObject({
      ok: false,
      class: 'malformed',
      detail: expect.stringContaining('$.reason'),
    });
  });

  it('a stalled endpoint is a timeout at the deadline', async () => {
    server.push(faults.stall());
    expect(await call({}, 400)).toMatchObject({ ok: false, class: 'timeout' });
  });

  it('a missing key is missing_context naming the variable', async () => {
    const r = await createReviewer(cfg({ apiKeyEnv: 'MY_ANTHROPIC_KEY' }), {
      role: 'refuter',
      name: 'refuter',
      repoRoot: '/',
      env: { ANTHROPIC_API_KEY: KEY },
    }).call(callRequest({ role: 'refuter', name: 'refuter' }));
    expect(r).toMatchObject({
      ok: false,
      class: 'missing_context',
      detail: expect.stringContaining('MY_ANTHROPIC_KEY'),
    });
    if (!r.ok) expect(r.detail).not.toContain(KEY);
  });

  it('an authentication error echoing the key is failed, with the key redacted', async () => {
    server.push(faults.status(401, 'authentication_error', `invalid x-api-key ${KEY}`));
    const r = await call();
    expect(r).toMatchObject({ ok: false, class: 'failed' });
    if (!r.ok) expect(r.detail).not.toContain(KEY);
  });
});
