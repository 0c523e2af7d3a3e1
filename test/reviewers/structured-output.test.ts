/**
 * Issue 17, points 6 and 7, against the loopback fault server through the real
 * SDKs: each API adapter asks for the reply schema as structured output,
 * falls back to plain JSON text only where the endpoint answers that it does
 * not offer it (recorded on the attempt, never read as a pass), sends the
 * pinned sampling, marks the shared prefix for the cache, and prices cached
 * input apart.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { ReviewerConfig } from '../../src/core/config.js';
import { reviewerPrompt } from '../../src/core/prompt.js';
import { sha256 } from '../../src/io/hash.js';
import type { CallResult } from '../../src/ports/reviewer.js';
import { createReviewer } from '../../src/reviewers/index.js';
import { replySchema } from '../../src/reviewers/structured-output.js';
import { faults } from '../helpers/fault-server.js';
import { faultServerPerFile } from '../helpers/fault-server-per-file.js';
import { callRequest, cleanupDirs } from './call-request.js';

const fault = faultServerPerFile();
afterAll(cleanupDirs);

const PRICES = { inputPerMTok: 3, outputPerMTok: 15, cachedInputPerMTok: 0.3, cacheWritePerMTok: 3.75 };
const env = { OPENAI_API_KEY: 'sk-test-openai-0123456789', ANTHROPIC_API_KEY: 'sk-ant-test-0123456789' };
const FINDING = {
  severity: 'MAJOR',
  file: 'src/a.ts',
  line: 3,
  endLine: null,
  claim: 'total is read before the await and written after it',
  failureScenario: 'two deposits of 5 leave 5',
  violatedClause: null,
  missedBecause: null,
};
const prompt = reviewerPrompt({
  reviewer: 'correctness',
  criteria: 'R1',
  diff: '+x',
  instructions: 'be brief',
  hash: sha256,
});

function call(adapter: 'openai' | 'anthropic', sampling?: { temperature: number | null; seed?: number }) {
  const cfg: ReviewerConfig = {
    name: 'correctness',
    adapter,
    model: 'pinned',
    baseURL: adapter === 'openai' ? fault.server.openaiBaseURL : fault.server.anthropicBaseURL,
    prices: PRICES,
  };
  return createReviewer(cfg, { role: 'reviewer', name: 'correctness', repoRoot: '/', env }).call(
    callRequest({ prompt, sampling }),
  );
}
const body = (i: number) => JSON.parse(fault.server.requests[i]?.body ?? '{}');
const refusedAs = (message: string) => faults.status(400, 'invalid_request_error', message);

describe('openai: response_format json_schema, strict', () => {
  it('asks for the reviewer schema with the pinned temperature and seed; nulls are absent fields', async () => {
    fault.server.push(faults.json({ verdict: 'findings', findings: [FINDING] }));
    const r = await call('openai', { temperature: 0, seed: 7 });
    expect(body(0)).toMatchObject({
      temperature: 0,
      seed: 7,
      response_format: {
        type: 'json_schema',
        json_schema: { name: 'revloop_reviewer_reply', strict: true, schema: replySchema('reviewer').schema },
      },
    });
    expect(r.ok && (r.reply as { findings: object[] }).findings[0]).toEqual({
      severity: 'MAJOR',
      file: 'src/a.ts',
      line: 3,
      claim: FINDING.claim,
      failureScenario: FINDING.failureScenario,
    });
    expect(r.ok && r.note).toMatch(/^structured output \(response_format json_schema\)/);
  });

  it('temperature null is not sent, and no seed is sent unless pinned', async () => {
    fault.server.push(faults.json({ verdict: 'pass', findings: [] }));
    await call('openai', { temperature: null });
    expect(body(0)).not.toHaveProperty('temperature');
    expect(body(0)).not.toHaveProperty('seed');
  });

  it('an endpoint that does not offer response_format gets the same prompt as plain JSON text, noted', async () => {
    fault.server.push(
      refusedAs(
        "Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model.",
      ),
      faults.json({ verdict: 'pass', findings: [] }),
    );
    const r = await call('openai');
    expect(fault.server.requests).toHaveLength(2);
    expect(body(1)).not.toHaveProperty('response_format');
    expect(body(1).messages).toEqual(body(0).messages);
    expect(r).toMatchObject({ ok: true, note: expect.stringContaining('structured output refused') });
  });

  it('the fallback is never read as a pass: its malformed text is malformed, with the fallback named', async () => {
    fault.server.push(refusedAs('response_format is unsupported'), faults.ok('LGTM, ship it'));
    const r = await call('openai');
    expect(r).toMatchObject({ ok: false, class: 'malformed', detail: expect.stringContaining('plain JSON') });
  });

  it('a 400 that is not about structured output is failed, with no second request', async () => {
    fault.server.push(refusedAs('The model `pinned` does not exist'));
    expect(await call('openai')).toMatchObject({ ok: false, class: 'failed' });
    expect(fault.server.requests).toHaveLength(1);
  });

  it('cached prompt tokens are priced at the cached rate', async () => {
    fault.server.push({ ...faults.json({ verdict: 'pass', findings: [] }), ...{ cacheReadTokens: 9000 } });
    const r = (await call('openai')) as Extract<CallResult, { ok: true }>;
    // 1000 uncached + 9000 cached input, 500 output.
    expect(r.costUsd).toBeCloseTo((1000 * 3 + 9000 * 0.3 + 500 * 15) / 1e6, 12);
    expect(r.note).toContain('input 1000 uncached, 9000 cache read');
  });
});

describe('anthropic: a forced tool call and a cache-marked prefix', () => {
  it('forces the reply tool, marks the shared part for the cache and sends the call part after it', async () => {
    fault.server.push(faults.tool({ verdict: 'findings', findings: [FINDING] }));
    const r = await call('anthropic', { temperature: 0, seed: 7 });
    const b = body(0);
    expect(b.tool_choice).toMatchObject({ type: 'tool', name: 'revloop_reviewer_reply' });
    expect(b.tools).toEqual([expect.objectContaining({ input_schema: replySchema('reviewer').schema })]);
    expect(b.temperature).toBe(0);
    expect(b).not.toHaveProperty('seed');
    const [shared, own] = b.messages[0].content;
    expect(shared.cache_control).toEqual({ type: 'ephemeral' });
    expect(own.cache_control).toBeUndefined();
    expect(shared.text + own.text).toBe(prompt);
    expect(own.text).toContain('Reviewer: correctness');
    expect(shared.text).not.toContain('correctness');
    expect(r).toMatchObject({
      ok: true,
      note: expect.stringMatching(/^structured output \(forced tool call\)/),
    });
    expect(r.ok && (r.reply as { findings: object[] }).findings[0]).not.toHaveProperty('endLine');
  });

  it('an endpoint without tools gets the same prompt as plain JSON text, noted', async () => {
    fault.server.push(
      refusedAs('tools are not supported by this endpoint'),
      faults.json({ verdict: 'pass', findings: [] }),
    );
    const r = await call('anthropic');
    expect(fault.server.requests).toHaveLength(2);
    expect(body(1)).not.toHaveProperty('tools');
    expect(body(1)).not.toHaveProperty('tool_choice');
    expect(body(1).messages).toEqual(body(0).messages);
    expect(r).toMatchObject({ ok: true, note: expect.stringContaining('structured output refused') });
  });

  it('cache reads and writes are priced at their own rates', async () => {
    fault.server.push(
      faults.tool({ verdict: 'pass', findings: [] }, { cacheReadTokens: 8000, cacheWriteTokens: 2000 }),
    );
    const r = (await call('anthropic')) as Extract<CallResult, { ok: true }>;
    // input_tokens 1000 (after the breakpoint), 8000 read, 2000 written, 500 output.
    expect(r.costUsd).toBeCloseTo((1000 * 3 + 8000 * 0.3 + 2000 * 3.75 + 500 * 15) / 1e6, 12);
    expect(r.note).toContain('input 1000 uncached, 8000 cache read, 2000 cache write; output 500');
  });
});
