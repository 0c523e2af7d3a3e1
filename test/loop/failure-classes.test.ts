/**
 * Every row of DESIGN.md's failure-class table (issue 4) through the real
 * loop: real git, a real SQLite ledger, real subprocess agents, the OpenAI
 * adapter against the loopback fault server. Each test asserts the run's
 * final status, outcome, reason and attempts; every completed run is then
 * replayed and must be identical (invariant 6).
 * (Worker died / controller crash mid-stage: test/loop/resume*.test.ts.)
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replayRun } from '../../src/core/replay.js';
import type { RunReport } from '../../src/core/run-report.js';
import { sha256 } from '../../src/io/hash.js';
import type { LoopDeps } from '../../src/loop/deps.js';
import { resumeRun } from '../../src/loop/operations.js';
import { loadRunReport } from '../../src/loop/outputs/run-report-loader.js';
import { type FaultServer, faults, startFaultServer } from '../helpers/fault-server.js';
import {
  baseConfig,
  CRITERIA,
  dyingAt,
  ensureBuilt,
  FIXED_FILE,
  findings,
  inProcess,
  makeReviewRepo,
  type Plan,
  pass,
  type ReviewRepo,
  raceFinding,
  review,
  runCli,
  testEnv,
} from './helpers.js';

const repos: ReviewRepo[] = [];
const completed: RunReport[] = [];
let server: FaultServer;
const ENV = testEnv({ REVLOOP_TEST_OPENAI_KEY: 'sk-test-not-a-secret' });

beforeAll(async () => {
  server = await startFaultServer();
}, 60_000);
afterAll(async () => {
  await server?.close();
  for (const r of repos) await r.cleanup();
});

/**
 * The first owner of `r`'s run dies after the review's verdicts are recorded,
 * before the stage completes; on return its lease (300 ms) has run out, so
 * another process may take the run over.
 */
async function diedBeforeReviewCompleted(r: ReviewRepo) {
  const first = await inProcess(r.dir, { env: ENV, tweak: dyingAt('before-complete:review', 300) });
  await expect(review(first, r.dir)).rejects.toThrow('controller died');
  const [stuck] = await first.store.listRuns();
  await first.close();
  if (!stuck) throw new Error('no run');
  await new Promise((res) => setTimeout(res, 400));
  return stuck;
}

const openaiReviewer = (model = 'model-pinned-1') => ({
  name: 'correctness',
  adapter: 'openai',
  baseURL: server.openaiBaseURL,
  model,
  apiKeyEnv: 'REVLOOP_TEST_OPENAI_KEY',
});

async function runCase(
  config: (a: { command: string[] }) => Record<string, unknown>,
  plan: Plan,
  o: { tweak?: (d: LoopDeps) => LoopDeps; configFrom?: 'base' | 'head'; files?: Record<string, string> } = {},
) {
  const r = await makeReviewRepo({ config: (a) => baseConfig(a, config(a)), files: o.files });
  repos.push(r);
  r.plan(plan);
  const p = await inProcess(r.dir, { env: ENV, tweak: o.tweak });
  try {
    const res = await review(p, r.dir, { configFrom: o.configFrom ?? 'base' });
    if (res.report.run.status === 'completed') completed.push(res.report);
    const classes = res.report.attempts.map((a) => a.class);
    return { r, run: res.report.run, report: res.report, classes };
  } finally {
    await p.close();
  }
}

describe('failure classes', () => {
  it('head moved: aborted / superseded', async () => {
    const { run, classes } = await runCase(() => ({}), {
      reviewer: [{ actions: ['pushMain'], reply: findings(raceFinding()) }],
    });
    expect(run).toMatchObject({ status: 'aborted', outcome: null, reason: 'superseded' });
    expect(classes).toEqual(['ok']);
  });

  it('stale diff: the stage result is rejected, failed / stale_context', async () => {
    // A run's diff is read and hashed once per process (a range of two commit ids cannot
    // change; P9), so a stale diff is what another process reads when it takes the run over.
    // Fault injection: the first owner dies before recording the review; the taker's git
    // hashes the diff differently from what admission froze.
    const r = await makeReviewRepo({ config: (a) => baseConfig(a, {}) });
    repos.push(r);
    r.plan({ reviewer: [{ reply: pass }, { reply: pass }] });
    const stuck = await diedBeforeReviewCompleted(r);
    const skewed = (d: LoopDeps): LoopDeps => ({
      ...d,
      git: {
        ...d.git,
        diffRead: async (...a: Parameters<typeof d.git.diffRead>) => {
          const got = await d.git.diffRead(...a);
          return { ...got, digest: `${got.digest.slice(0, -4)}beef` };
        },
        diffDigest: async (...a: Parameters<typeof d.git.diffDigest>) =>
          `${(await d.git.diffDigest(...a)).slice(0, -4)}beef`,
      },
    });
    const second = await inProcess(r.dir, { env: ENV, tweak: skewed });
    try {
      await resumeRun(second.deps, stuck.id);
      const report = await loadRunReport(second.store, stuck.id);
      expect(report?.run).toMatchObject({ status: 'failed', outcome: null, reason: 'stale_context' });
      expect(report?.stages).toHaveLength(0);
    } finally {
      await second.close();
    }
  });

  it('head moved while the fixer worked: aborted / superseded, and the fix never lands on the run ref', async () => {
    const { run, report, r } = await runCase((a) => ({ fixer: a }), {
      reviewer: [{ reply: findings(raceFinding()) }],
      fixer: [{ actions: ['pushMain'], write: { 'src/calc.js': FIXED_FILE }, reply: { disputed: [] } }],
    });
    expect(run).toMatchObject({ status: 'aborted', outcome: null, reason: 'superseded' });
    // The call itself succeeded and its reply is kept; the stage result was rejected.
    expect(report.attempts.map((a) => `${a.role}:${a.class}`)).toEqual(['reviewer:ok', 'fixer:ok']);
    expect(report.stages.map((s) => s.stage)).not.toContain('fix');
    expect(run.head).toBe(report.run.snapshot.head);
    expect(() => r.repo.git(['rev-parse', '--verify', '--quiet', `refs/revloop/runs/${run.id}`])).toThrow();
  });

  it('criteria changed mid-run (--config-from head, a fixer edits REVIEW.md): aborted / rules_changed', async () => {
    const { run, report, r } = await runCase(
      (a) => ({ fixer: a }),
      {
        reviewer: [{ reply: findings(raceFinding()) }],
        fixer: [
          {
            write: { 'src/calc.js': FIXED_FILE, 'REVIEW.md': `${CRITERIA}3. Races are fine.\n` },
            reply: { disputed: [] },
          },
        ],
      },
      { configFrom: 'head' },
    );
    expect(run).toMatchObject({ status: 'aborted', outcome: null, reason: 'rules_changed' });
    expect(run.detail).toMatch(/REVIEW\.md/);
    expect(report.attempts.map((a) => `${a.role}:${a.class}`)).toEqual(['reviewer:ok', 'fixer:ok']);
    expect(report.stages.map((s) => s.stage)).not.toContain('fix');
    expect(() => r.repo.git(['rev-parse', '--verify', '--quiet', `refs/revloop/runs/${run.id}`])).toThrow();
  });

  it('model drift (command agent): failed / model_drift, never retried', async () => {
    const { run, classes } = await runCase(
      (a) => ({ reviewers: [{ name: 'correctness', model: 'model-pinned-1', ...a }] }),
      { reviewer: [{ reply: { ...pass, model: 'model-other-2' } }] },
    );
    expect(run).toMatchObject({ status: 'failed', outcome: null, reason: 'model_drift' });
    expect(classes).toEqual(['model_drift']);
  });

  it('model drift (openai adapter, the endpoint serves another model): failed / model_drift', async () => {
    server.push(faults.json(pass, 'model-other-2'));
    const { run, classes } = await runCase(() => ({ reviewers: [openaiReviewer()] }), {});
    expect(run).toMatchObject({ status: 'failed', reason: 'model_drift' });
    expect(classes).toEqual(['model_drift']);
  });

  it('rate limited (429 with Retry-After, then ok): completed, 2 attempts', async () => {
    server.push(faults.rateLimited('0'), faults.json(pass));
    const { run, classes } = await runCase(() => ({ reviewers: [openaiReviewer()] }), {});
    expect(run).toMatchObject({ status: 'completed', outcome: 'clear' });
    expect(classes).toEqual(['rate_limited', 'ok']);
  });

  it('unavailable (503, then ok): completed, 2 attempts', async () => {
    server.push(faults.status(503), faults.json(findings(raceFinding())));
    const { run, classes } = await runCase(() => ({ reviewers: [openaiReviewer()] }), {});
    expect(run).toMatchObject({ status: 'completed', outcome: 'findings' });
    expect(classes).toEqual(['unavailable', 'ok']);
  });

  it('unavailable (agent exit 75, then ok): completed, 2 attempts', async () => {
    const { run, classes } = await runCase(() => ({}), {
      reviewer: [{ call: 1, exit: 75 }, { reply: pass }],
    });
    expect(run).toMatchObject({ status: 'completed', outcome: 'clear' });
    expect(classes).toEqual(['unavailable', 'ok']);
  });

  it('connection reset mid-stream, then ok: completed, 2 attempts', async () => {
    server.push(faults.resetMidStream(), faults.json(pass));
    const { run, classes } = await runCase(() => ({ reviewers: [openaiReviewer()] }), {});
    expect(run).toMatchObject({ status: 'completed', outcome: 'clear' });
    expect(classes).toHaveLength(2);
    expect(classes[1]).toBe('ok');
  });

  it('timeout (an agent sleeps past timeouts.callSeconds, then ok): completed, 2 attempts', async () => {
    const { run, classes } = await runCase(() => ({ timeouts: { callSeconds: 1 } }), {
      reviewer: [{ call: 1, sleepMs: 5000, reply: pass }, { reply: pass }],
    });
    expect(run).toMatchObject({ status: 'completed', outcome: 'clear' });
    expect(classes).toEqual(['timeout', 'ok']);
  });

  it('truncated (finish_reason length, then ok): retried, completed, 2 attempts', async () => {
    server.push(faults.truncated(), faults.json(pass));
    const { run, classes } = await runCase(() => ({ reviewers: [openaiReviewer()] }), {});
    expect(run).toMatchObject({ status: 'completed', outcome: 'clear' });
    expect(classes).toEqual(['truncated', 'ok']);
  });

  it('retries are capped: 3 truncations fail the run retries_exhausted', async () => {
    server.push(faults.truncated(), faults.truncated(), faults.truncated());
    const { run, classes } = await runCase(() => ({ reviewers: [openaiReviewer()] }), {});
    expect(run).toMatchObject({ status: 'failed', outcome: null, reason: 'retries_exhausted' });
    expect(classes).toEqual(['truncated', 'truncated', 'truncated']);
  });

  it('malformed (prose instead of JSON): failed / malformed, 1 attempt, never retried', async () => {
    const { run, classes } = await runCase(() => ({}), { reviewer: [{ stdout: 'Looks fine to me.' }] });
    expect(run).toMatchObject({ status: 'failed', outcome: null, reason: 'malformed' });
    expect(classes).toEqual(['malformed']);
  });

  it('refusal (the endpoint refuses): failed / refused, 1 attempt', async () => {
    server.push(faults.refusal());
    const { run, classes } = await runCase(() => ({ reviewers: [openaiReviewer()] }), {});
    expect(run).toMatchObject({ status: 'failed', outcome: null, reason: 'refused' });
    expect(classes).toEqual(['refused']);
  });

  it('missing context (a script with no reply for the reviewer): failed / missing_context, 1 attempt', async () => {
    const { run, classes } = await runCase(
      () => ({ reviewers: [{ name: 'correctness', adapter: 'scripted', script: 'review/script.json' }] }),
      {},
      { files: { 'review/script.json': JSON.stringify({ someone_else: { '*': { reply: pass } } }) } },
    );
    expect(run).toMatchObject({ status: 'failed', outcome: null, reason: 'missing_context' });
    expect(classes).toEqual(['missing_context']);
  });

  it('duplicate delivery: a recorded call key returns the recorded verdict and records nothing', async () => {
    const r = await makeReviewRepo({ config: (a) => baseConfig(a) });
    repos.push(r);
    r.plan({ reviewer: [{ reply: findings(raceFinding()) }] });
    const stuck = await diedBeforeReviewCompleted(r);

    const second = await inProcess(r.dir, { env: ENV });
    try {
      const [v] = await second.store.listVerdicts(stuck.id);
      if (!v) throw new Error('no verdict');
      // A second delivery of the same call key, with a different reply.
      const lease = await second.store.acquireLease(stuck.id, second.deps.owner, 5000);
      if (!lease) throw new Error('no lease');
      const { recordedAt: _, ...row } = v;
      const dup = await second.store.recordVerdict(lease, { ...row, reply: pass });
      expect(dup.inserted).toBe(false);
      expect(dup.verdict.reply).toEqual(v.reply);
      await second.store.releaseLease(lease);
      // Resume: the recorded verdict is used, the agent is not called again.
      const res = await resumeRun(second.deps, stuck.id);
      expect(res.run).toMatchObject({ status: 'completed', outcome: 'findings' });
      expect(r.counts().reviewer).toBe(1);
      expect(await second.store.listVerdicts(stuck.id)).toHaveLength(1);
      expect((await second.store.listAttempts(stuck.id)).map((a) => a.class)).toEqual(['ok']);
      const report = await loadRunReport(second.store, stuck.id);
      if (report) completed.push(report);
    } finally {
      await second.close();
    }
  });
});

describe('replay (invariant 6)', () => {
  it('every completed run above replays identical', () => {
    expect(completed.length).toBeGreaterThanOrEqual(6);
    for (const report of completed) {
      const res = replayRun(report, CRITERIA, sha256);
      expect(res.divergence, report.run.id).toBeNull();
      expect(res.identical).toBe(true);
    }
  });

  it('the CLI agrees: replay exits 0 identical', async () => {
    ensureBuilt();
    const report = completed.find((c) => c.run.outcome === 'findings');
    // Fixture repositories made in the same second have the same commit ids: find the run by its record.
    const r = repos.find(
      (x) => report && existsSync(join(x.dir, '.revloop', 'records', `${report.run.id}.json`)),
    );
    if (!report || !r) throw new Error('no completed run with findings');
    const res = await runCli(['replay', report.run.id, '--json'], { cwd: r.dir, env: ENV });
    expect(res.code, res.stderr).toBe(0);
    expect(res.json).toMatchObject({ identical: true });
  }, 600_000);
});
