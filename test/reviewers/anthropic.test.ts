// What the anthropic adapter sends and how it holds its key. Which fault is which call class is
// the Reviewer port contract's (test/reviewers/contract/anthropic.contract.test.ts).
import { afterAll, describe, expect, it } from 'vitest';
import type { ReviewerConfig } from '../../src/core/config.js';
import type { CallResult } from '../../src/ports/reviewer.js';
import { createReviewer } from '../../src/reviewers/index.js';
import { faults } from '../helpers/fault-server.js';
import { faultServerPerFile } from '../helpers/fault-server-per-file.js';
import { anthropicConfig } from './api-configs.js';
import { callRequest, cleanupDirs } from './call-request.js';

const KEY = 'sk-ant-fault-test-0123456789abcdef';
const UPHELD = { decision: 'upheld', reason: 'the race is real' };
const fault = faultServerPerFile();
afterAll(cleanupDirs);

const cfg = (over: Partial<ReviewerConfig> = {}): ReviewerConfig => anthropicConfig(fault.server, over);
const env = { ANTHROPIC_API_KEY: KEY };
const call = (over: Partial<ReviewerConfig> = {}, deadlineInMs = 10_000): Promise<CallResult> =>
  createReviewer(cfg(over), { role: 'refuter', name: 'refuter', repoRoot: '/', env }).call(
    callRequest({ role: 'refuter', name: 'refuter', deadlineMs: Date.now() + deadlineInMs }),
  );

describe('anthropic adapter against the fault server', () => {
  it('streams a reply, reports the served model and prices the tokens', async () => {
    fault.server.push(faults.json(UPHELD));
    const r = await call();
    expect(r).toEqual({
      ok: true,
      reply: UPHELD,
      modelId: 'claude-pinned',
      costUsd: (1000 * 3 + 500 * 15) / 1e6,
      // The fault server answers in text whatever the request forces: the attempt says so.
      note: expect.stringContaining('the endpoint answered in text'),
    });
    const [req] = fault.server.requests;
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
});
