import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import type { AgentConfig } from '../../src/core/config.js';
import { createReviewer } from '../../src/reviewers/index.js';
import { faults } from '../helpers/fault-server.js';
import { faultServerPerFile } from '../helpers/fault-server-per-file.js';
import { AGENTS, callRequest, cleanupDirs } from './call-request.js';

const fault = faultServerPerFile();
afterAll(cleanupDirs);

const key = fc.stringMatching(/^sk-[A-Za-z0-9_-]{12,40}$/);
const status = fc.constantFrom(400, 401, 403, 404, 429, 500, 503, 529);

describe('no error detail ever contains the API key value', () => {
  it.each(['openai', 'anthropic'] as const)(
    '%s: endpoints that echo the key in their errors',
    async (adapter) => {
      await fc.assert(
        fc.asyncProperty(key, status, fc.string({ maxLength: 20 }), async (secret, code, noise) => {
          fault.server.push(faults.status(code, undefined, `${noise}${secret}${noise} (key: ${secret})`));
          const cfg: AgentConfig = {
            adapter,
            model: 'm',
            baseURL: adapter === 'openai' ? fault.server.openaiBaseURL : fault.server.anthropicBaseURL,
            apiKeyEnv: 'FUZZ_KEY',
          };
          const r = await createReviewer(cfg, {
            role: 'reviewer',
            name: 'z',
            repoRoot: '/',
            env: { FUZZ_KEY: secret },
          }).call(callRequest({ name: 'z' }));
          expect(r.ok).toBe(false);
          if (!r.ok) expect(r.detail).not.toContain(secret);
        }),
        { numRuns: 15 },
      );
    },
  );

  it('command agents that print the key to stderr', async () => {
    await fc.assert(
      fc.asyncProperty(key, async (secret) => {
        const r = await createReviewer(
          { adapter: 'command', command: [join(AGENTS, 'reviewer.mjs'), 'exit3'], env: ['OPENAI_API_KEY'] },
          { role: 'reviewer', name: 'z', repoRoot: '/', env: { ...process.env, OPENAI_API_KEY: secret } },
        ).call(callRequest({ name: 'z' }));
        expect(r.ok).toBe(false);
        if (!r.ok) expect(r.detail).not.toContain(secret);
      }),
      { numRuns: 5 },
    );
  });
});
