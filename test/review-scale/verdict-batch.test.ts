/**
 * P9's batched verdicts under a real kill -9: a chunked round records its
 * verdicts by group commit, up to VERDICTS_PER_COMMIT to a transaction (src/loop/calls/verdict-batch.ts). The
 * controller is SIGKILLed by its own reviewer in the middle of the round;
 * whatever the ledger then holds, every recorded verdict has its prompt on
 * disk and its attempt ended `ok`, and the run taken over completes clear
 * with every file covered, asking again only calls that have no verdict,
 * and replays identical.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ReviewResult } from '../../src/core/stage-results.js';
import { VERDICTS_PER_COMMIT } from '../../src/loop/calls/verdict-batch.js';
import { loadRunReport } from '../../src/loop/outputs/run-report-loader.js';
import {
  baseConfig,
  ensureBuilt,
  expectReplayIdentical,
  inProcess,
  makeReviewRepo,
  type ReviewRepo,
  ROOT,
  runCli,
} from '../loop/helpers.js';

const KILLER = join(ROOT, 'test/fixtures/scale/kill-controller-reviewer.mjs');
const FILES = 40;
/** The call that kills the controller: past the first full batch, inside the second. */
const KILL_AT = VERDICTS_PER_COMMIT + 5;

const repos: ReviewRepo[] = [];
beforeAll(() => ensureBuilt(), 300_000);
afterAll(async () => {
  for (const r of repos) await r.cleanup();
});

const lines = (tag: string) =>
  Array.from({ length: 20 }, (_, i) => `export const ${tag}${i} = '${'x'.repeat(32)}';`).join('\n') + '\n';

it('a controller killed -9 mid-round loses no recorded verdict nor its prompt, and the takeover completes clear', async () => {
  const change = Object.fromEntries(
    Array.from({ length: FILES }, (_, i) => [`src/f${i}.js`, lines(`f${i}`)]),
  );
  let log = '';
  const r = await makeReviewRepo({
    config: (a) => {
      log = join(a.command[2] ?? '', '..', 'calls.log');
      return baseConfig(a, {
        retry: { attempts: 1, baseDelayMs: 10, maxDelayMs: 50 },
        // One file per chunk: FILES chunk calls.
        review: { chunkBytes: 1500, concurrency: 1 },
        reviewers: [{ name: 'k', command: [process.execPath, KILLER, log, String(KILL_AT)] }],
      });
    },
    change,
  });
  repos.push(r);

  const killed = await runCli(['review', '--head', 'topic', '--json'], { cwd: r.dir, timeoutMs: 240_000 });
  expect(killed.json, killed.stderr).toBeNull();
  const asked = readFileSync(log, 'utf8').split('\n').filter(Boolean);
  expect(asked).toHaveLength(KILL_AT);

  const p = await inProcess(r.dir);
  let runId: string;
  let before: string[];
  try {
    const [run] = await p.store.listRuns({});
    expect(run?.status).toBe('running');
    runId = run?.id ?? '';
    const verdicts = await p.store.listVerdicts(runId);
    const attempts = await p.store.listAttempts(runId);
    before = verdicts.map((v) => v.callKey);
    // Whatever was written before the kill is whole: a verdict only for a call made, its
    // attempt ended ok with it, its prompt on disk; no ok attempt without its verdict.
    expect(verdicts.length).toBeLessThan(KILL_AT);
    for (const v of verdicts) {
      expect(asked).toContain(v.callKey);
      expect(existsSync(join(r.dir, '.revloop', 'prompts', `${v.promptDigest}.txt`)), v.promptDigest).toBe(
        true,
      );
    }
    const ok = attempts.filter((a) => a.class === 'ok').map((a) => a.callKey);
    expect(ok.sort()).toEqual([...before].sort());
  } finally {
    await p.close();
  }

  // The owner is dead: review of the same revision takes the run over and finishes it.
  const res = await runCli(['review', '--head', 'topic', '--json'], { cwd: r.dir, timeoutMs: 240_000 });
  expect(res.code, res.stderr).toBe(0);
  expect(res.json).toMatchObject({ runId, status: 'completed', outcome: 'clear' });
  const again = readFileSync(log, 'utf8').split('\n').filter(Boolean).slice(KILL_AT);
  // Only calls with no verdict are asked again; every chunk is asked at least once overall.
  for (const k of before) expect(again).not.toContain(k);
  expect(new Set([...asked, ...again]).size).toBe(FILES);

  const q = await inProcess(r.dir);
  try {
    const rep = await loadRunReport(q.store, runId);
    if (!rep) throw new Error('run vanished');
    await expectReplayIdentical(q.deps, rep);
    const review = rep.stages.find((s) => s.stage === 'review')?.result as ReviewResult;
    expect(review.coverage?.k?.reviewed).toHaveLength(FILES);
    expect(review.verdicts).toHaveLength(FILES);
    for (const v of rep.verdicts)
      expect(existsSync(join(r.dir, '.revloop', 'prompts', `${v.promptDigest}.txt`))).toBe(true);
  } finally {
    await q.close();
  }
}, 300_000);
