import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ReviewerConfig } from '../../src/core/config.js';
import type { Role } from '../../src/core/types.js';
import type { CallRequest } from '../../src/ports/reviewer.js';

export const AGENTS = join(import.meta.dirname, '..', 'fixtures', 'agents');

/**
 * The command adapter running the stand-in agent (fixtures/agents/reviewer.mjs) in `mode`,
 * given the variables it reads: the model it claims, and a key it may print.
 */
export const standInConfig = (mode: string, over: Partial<ReviewerConfig> = {}): ReviewerConfig => ({
  name: 'correctness',
  adapter: 'command',
  command: [join(AGENTS, 'reviewer.mjs'), mode],
  env: ['STANDIN_MODEL', 'OPENAI_API_KEY'],
  ...over,
});

/** The context a reviewer named `correctness` is made in, with `env` as its environment. */
export const reviewerContext = (env: NodeJS.ProcessEnv = process.env) => ({
  role: 'reviewer' as const,
  name: 'correctness',
  repoRoot: '/',
  env,
});

/** A call request against a fresh temporary directory standing in for the checkout. */
export function callRequest(over: Partial<CallRequest> & { role?: Role } = {}): CallRequest {
  return {
    callKey: 'ck-1',
    role: 'reviewer',
    name: 'correctness',
    round: 1,
    prompt: 'Review this diff please.',
    promptDigest: 'pd-1',
    base: 'b'.repeat(40),
    head: 'h'.repeat(40),
    repoDir: over.repoDir ?? tempDir(),
    deadlineMs: Date.now() + 15_000,
    ...over,
  };
}

const dirs: string[] = [];
export function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'revloop-rev-'));
  dirs.push(d);
  return d;
}
export function cleanupDirs(): void {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
}

/** A loopback port nothing listens on: bound, then released. */
export function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}
