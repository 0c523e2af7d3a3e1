// What the openai adapter sends and how it holds its key. Which fault is which call class is
// the Reviewer port contract's (test/reviewers/contract/openai.contract.test.ts).
import { afterAll, describe, expect, it } from 'vitest';
import type { ReviewerConfig } from '../../src/core/config.js';
import type { CallResult } from '../../src/ports/reviewer.js';
import { createReviewer } from '../../src/reviewers/index.js';
import { faults } from '../helpers/fault-server.js';
import { faultServerPerFile } from '../helpers/fault-server-per-file.js';
import { openaiConfig } from './api-configs.js';
import { callRequest, cleanupDirs } from './call-request.js';

const KEY = 'sk-fault-test-0123456789abcdef';
const PASS = { verdict: 'pass', findings: [] };
const fault = faultServerPerFile();
afterAll(cleanupDirs);

const cfg = (over: Partial<ReviewerConfig> = {}): ReviewerConfig => openaiConfig(fault.server, over);
const env = { REVLOOP_TEST_OPENAI_KEY: KEY };
const call = (over: Partial<ReviewerConfig> = {}, deadlineInMs = 10_000): Promise<CallResult> =>
  createReviewer(cfg(over), { role: 'reviewer', name: 'standards', repoRoot: '/', env }).call(
    callRequest({ name: 'standards', deadlineMs: Date.now() + deadlineInMs }),
  );

describe('openai adapter against the fault server', () => {
  it('streams a reply, reports the served model and prices the tokens', async () => {
    fault.server.push(faults.json(PASS));
    const r = await call();
    expect(r).toEqual({
      ok: true,
      reply: PASS,
      modelId: 'gpt-pinned',
      costUsd: (1000 * 2 + 500 * 8) / 1e6,
      note: expect.stringContaining('tokens: input 1000 uncached'),
    });
    const [req] = fault.server.requests;
    expect(req?.headers.authorization).toBe(`Bearer ${KEY}`);
    const body = JSON.parse(req?.body ?? '{}');
    expect(body).toMatchObject({ model: 'gpt-pinned', stream: true, messages: [{ role: 'user' }] });
  });

  it('says it caches a prefix, and calls onFirstBytes once, when the first stream event arrives', async () => {
    fault.server.push(faults.json(PASS));
    const reviewer = createReviewer(cfg(), { role: 'reviewer', name: 'standards', repoRoot: '/', env });
    expect(reviewer.cachesPrefix).toBe(true);
    let first = 0;
    const r = await reviewer.call({
      ...callRequest({ name: 'standards', deadlineMs: Date.now() + 10_000 }),
      onFirstBytes: () => first++,
    });
    expect(r).toMatchObject({ ok: true });
    expect(first).toBe(1);
    fault.server.push(faults.status(503));
    let none = 0;
    await reviewer.call({
      ...callRequest({ name: 'standards', deadlineMs: Date.now() + 10_000 }),
      onFirstBytes: () => none++,
    });
    expect(none, 'an error status is no reply event').toBe(0);
  });

  it('makes exactly one request per call (SDK retries are off)', async () => {
    fault.server.push(faults.status(503));
    expect(await call()).toMatchObject({ ok: false, class: 'unavailable' });
    expect(fault.server.requests).toHaveLength(1);
    expect(fault.server.pending()).toBe(0);
  });

  it('sends the key only in the Authorization header', async () => {
    fault.server.push(
      faults.json(PASS),
      faults.status(401, 'invalid_api_key', `Incorrect API key provided: ${KEY}`),
    );
    await call();
    const r = await call();
    expect(r).toMatchObject({ ok: false, class: 'failed' });
    if (!r.ok) expect(r.detail).not.toContain(KEY);
    for (const req of fault.server.requests) {
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
    fault.server.push(faults.ok('hello', 'served-x'));
    const client = new OpenAI({ apiKey: KEY, baseURL: fault.server.openaiBaseURL, maxRetries: 0 });
    const res = await client.chat.completions.create({
      model: 'asked',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(res.model).toBe('served-x');
    expect(res.choices[0]?.message.content).toBe('hello');
    expect(res.choices[0]?.finish_reason).toBe('stop');
  });
});
