import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ReviewerConfig } from '../../src/core/config.js';
import type { CallResult } from '../../src/ports/reviewer.js';
import { createReviewer } from '../../src/reviewers/index.js';
import { type FaultServer, faults, startFaultServer } from '../helpers/fault-server.js';
import { callRequest, cleanupDirs, closedPort } from './call-request.js';

const KEY = 'sk-fault-test-0123456789abcdef';
const PASS = { verdict: 'pass', findings: [] };
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
  name: 'standards',
  adapter: 'openai',
  baseURL: server.openaiBaseURL,
  model: 'gpt-pinned',
  apiKeyEnv: 'REVLOOP_TEST_OPENAI_KEY',
  prices: { inputPerMTok: 2, outputPerMTok: 8 },
  ...over,
});
const env = { REVLOOP_TEST_OPENAI_KEY: KEY };
const call = (over: Partial<ReviewerConfig> = {}, deadlineInMs = 10_000): Promise<CallResult> =>
  createReviewer(cfg(over), { role: 'reviewer', name: 'standards', repoRoot: '/', env }).call(
    callRequest({ name: 'standards', deadlineMs: Date.now() + deadlineInMs }),
  );

describe('openai adapter against the fault server', () => {
  it('streams a reply, reports the served model and prices the tokens', async () => {
    server.push(faults.json(PASS));
    const r = await call();
    expect(r).toEqual({
      ok: true,
      reply: PASS,
      modelId: 'gpt-pinned',
      costUsd: (1000 * 2 + 500 * 8) / 1e6,
      note: expect.stringContaining('tokens: input 1000 uncached'),
    });
    const [req] = server.requests;
    expect(req?.headers.authorization).toBe(`Bearer ${KEY}`);
    const body = JSON.parse(req?.body ?? '{}');
    expect(body).toMatchObject({ model: 'gpt-pinned', stream: true, messages: [{ role: 'user' }] });
  });

  it('makes exactly one request per call (SDK retries are off)', async () => {
    server.push(faults.status(503));
    expect(await call()).toMatchObject({ ok: false, class: 'unavailable' });
    expect(server.requests).toHaveLength(1);
    expect(server.pending()).toBe(0);
  });

  it('429 is rate_limited with Retry-After in seconds or as an HTTP date', async () => {
    server.push(faults.rateLimited('7'));
    expect(await call()).toMatchObject({ ok: false, class: 'rate_limited', retryAfterMs: 7000 });
    server.push(faults.rateLimited(new Date(Date.now() + 30_000).toUTCString()));
    const r = await call();
    expect(r).toMatchObject({ ok: false, class: 'rate_limited' });
    if (!r.ok) expect(r.retryAfterMs).toBeGreaterThan(25_000);
    server.push(faults.rateLimited());
    const bare = await call();
    expect(bare).toMatchObject({ ok: false, class: 'rate_limited' });
    if (!bare.ok) expect(bare.retryAfterMs).toBeUndefined();
  });

  it('5xx and a refused/reset connection are unavailable', async () => {
    server.push(faults.status(500), faults.resetBefore());
    expect(await call()).toMatchObject({ ok: false, class: 'unavailable' });
    expect(await call()).toMatchObject({ ok: false, class: 'unavailable' });
    const closed = await call({ baseURL: `http://127.0.0.1:${await closedPort()}/v1` });
    expect(closed).toMatchObject({ ok: false, class: 'unavailable' });
  });

  it('a stream reset mid-reply or cut before a finish reason is truncated', async () => {
    server.push(faults.resetMidStream(), faults.cut());
    expect(await call()).toMatchObject({ ok: false, class: 'truncated' });
    expect(await call()).toMatchObject({
      ok: false,
      class: 'truncated',
      detail: expect.stringContaining('finish reason'),
    });
  });

  it('finish_reason "length" is truncated', async () => {
    server.push(faults.truncated());
    expect(await call()).toMatchObject({
      ok: false,
      class: 'truncated',
      detail: expect.stringContaining('length'),
    });
  });

  it('a refusal or a content filter is refused', async () => {
    server.push(faults.refusal(), faults.contentFilter());
    expect(await call()).toMatchObject({ ok: false, class: 'refused' });
    expect(await call()).toMatchObject({ ok: false, class: 'refused' });
  });

  it('another served model is model drift; no pin accepts it and records it', async () => {
    server.push(faults.json(PASS, 'gpt-other'), faults.json(PASS, 'gpt-other'));
    expect(await call()).toMatchObject({
      ok: false,
      class: 'model_drift',
      detail: expect.stringContaining('gpt-other'),
    });
    expect(await call({ model: 'gpt-other' })).toMatchObject({ ok: true, modelId: 'gpt-other' });
  });

  it('content that is not a valid reply is malformed', async () => {
    server.push(faults.ok('Looks good!'), faults.json({ verdict: 'maybe', findings: [] }));
    expect(await call()).toMatchObject({
      ok: false,
      class: 'malformed',
      detail: expect.stringContaining('not JSON'),
    });
    expect(await call()).toMatchObject({
      ok: false,
      class: 'malformed',
      detail: expect.stringContaining('$.verdict'),
    });
  });

  it('a stalled endpoint is a timeout at the deadline', async () => {
    server.push(faults.stall());
    const t0 = Date.now();
    expect(await call({}, 400)).toMatchObject({ ok: false, class: 'timeout' });
    // The endpoint never answers: anything near the deadline, with room for a loaded machine.
    expect(Date.now() - t0).toBeLessThan(20_000);
  });

  it('a missing key is missing_context naming the variable, and nothing is sent', async () => {
    const r = await createReviewer(cfg(), {
      role: 'reviewer',
      name: 'standards',
      repoRoot: '/',
      env: {},
    }).call(callRequest());
    expect(r).toEqual({
      ok: false,
      class: 'missing_context',
      detail: 'reviewer "standards": API key variable REVLOOP_TEST_OPENAI_KEY is not set',
    });
    expect(server.requests).toHaveLength(0);
  });

  it('sends the key only in the Authorization header', async () => {
    server.push(
      faults.json(PASS),
      faults.status(401, 'invalid_api_key', `Incorrect API key provided: ${KEY}`),
    );
    await call();
    const r = await call();
    expect(r).toMatchObject({ ok: false, class: 'failed' });
    if (!r.ok) expect(r.detail).not.toContain(KEY);
    for (const req of server.requests) {
      expect(req.body).not.toContain(KEY);
      expect(req.path).not.toContain(KEY);
      const others = Object.entries(req.headers).filter(([h]) => h !== 'authorization');
      expect(JSON.stringify(others)).not.toContain(KEY);
    }
  });
});

describe('fault server', () => {
  it('also answers non-streaming chat completions, as the SDK reads them', async () => {
    const { default: OpenAI } = await import('openai');
    server.push(faults.ok('hello', 'served-x'));
    const client = new OpenAI({ apiKey: KEY, baseURL: server.openaiBaseURL, maxRetries: 0 });
    const res = await client.chat.completions.create({
      model: 'asked',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(res.model).toBe('served-x');
    expect(res.choices[0]?.message.content).toBe('hello');
    expect(res.choices[0]?.finish_reason).toBe('stop');
  });
});
