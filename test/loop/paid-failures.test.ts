/**
 * Invariant 12 for calls that fail: a reply that was paid for and then
 * rejected keeps its cost. Seen on real repositories recorded as $0: Claude
 * Code answering prose, Claude Code stopping at its own cost limit, a command
 * reviewer whose invalid reply reports its cost. The stand-in CLIs and agents
 * are real subprocesses; the run through the CLI on a real SQLite ledger.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReviewer } from '../../src/reviewers/index.js';
import { AGENTS, callRequest, cleanupDirs } from '../reviewers/call-request.js';
import { baseConfig, ensureBuilt, makeReviewRepo, reposRemovedAfterAll, runCli } from './helpers.js';

const repos = reposRemovedAfterAll();
beforeAll(() => ensureBuilt(), 120_000);
afterAll(cleanupDirs);

const claude = (mode: string) =>
  createReviewer(
    { adapter: 'claude-code', command: [join(AGENTS, 'claude.mjs'), mode] },
    { role: 'reviewer', name: 'cc', repoRoot: '/', env: process.env },
  ).call(callRequest({ name: 'cc' }));

describe('a failed call keeps the cost its reply reported', () => {
  it.each(['prose', 'budget', 'max-turns', 'is-error', 'no-result'])(
    "claude-code %s: the failure carries the envelope's total_cost_usd",
    async (mode) => {
      const res = await claude(mode);
      expect(res.ok).toBe(false);
      expect(res).toMatchObject({ costUsd: 0.0123 });
    },
  );

  it('a command reviewer whose invalid reply reports usage.costUsd 3.5: the run fails and costs 3.5', async () => {
    const r = await makeReviewRepo({
      config: (a) => baseConfig(a, { retry: { attempts: 1, baseDelayMs: 1, maxDelayMs: 1 } }),
    });
    repos.push(r);
    r.plan({ reviewer: [{ reply: { verdict: 'maybe', findings: [], usage: { costUsd: 3.5 } } }] });
    const res = await runCli(['review', '--head', 'topic', '--json'], { cwd: r.dir });
    expect(res.json, res.stderr).toMatchObject({ status: 'failed' });
    expect(res.json?.costUsd).toBeCloseTo(3.5);
  });
});
