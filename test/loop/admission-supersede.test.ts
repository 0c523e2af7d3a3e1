/**
 * Invariant 3 (admission is idempotent) and invariant 4 (inputs are frozen:
 * a push during a run supersedes it) with real processes, real git, real
 * SQLite and PostgreSQL ledgers and a real subprocess reviewer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/index.js';
import { createTestDatabase, type TestDatabase } from '../helpers/pg.js';
import {
  baseConfig,
  type CliResult,
  ensureBuilt,
  makeReviewRepo,
  pass,
  type ReviewRepo,
  runCli,
  testEnv,
} from './helpers.js';

const repos: ReviewRepo[] = [];
let db: TestDatabase;
beforeAll(async () => {
  ensureBuilt();
  db = await createTestDatabase('revloop_loop_adm');
}, 600_000);
afterAll(async () => {
  for (const r of repos) await r.cleanup();
  await db?.drop();
});

async function repoWithSlowPass(sleepMs: number): Promise<ReviewRepo> {
  const r = await makeReviewRepo({ config: (a) => baseConfig(a) });
  repos.push(r);
  r.plan({ reviewer: [{ sleepMs, reply: pass }] });
  return r;
}

/** 3 `review` and 3 `enqueue` processes on one revision, all started together. */
async function race(
  r: ReviewRepo,
  env: NodeJS.ProcessEnv,
): Promise<{ reviews: CliResult[]; enqueues: CliResult[] }> {
  const review = () => runCli(['review', '--head', 'topic', '--json'], { cwd: r.dir, env });
  const enqueue = () => runCli(['enqueue', '--head', 'topic', '--json'], { cwd: r.dir, env });
  const all = await Promise.all([review(), enqueue(), review(), enqueue(), review(), enqueue()]);
  return {
    reviews: [all[0], all[2], all[4]] as CliResult[],
    enqueues: [all[1], all[3], all[5]] as CliResult[],
  };
}

function expectOneRun(res: { reviews: CliResult[]; enqueues: CliResult[] }) {
  const ids = new Set<unknown>();
  for (const x of [...res.reviews, ...res.enqueues]) {
    expect(x.code, x.stderr).toBe(0);
    ids.add(x.json?.runId);
  }
  expect(ids.size).toBe(1);
  for (const x of res.reviews) expect(x.json).toMatchObject({ status: 'completed', outcome: 'clear' });
  const created = [...res.reviews, ...res.enqueues].filter((x) => x.json?.admitted === 'created');
  expect(created).toHaveLength(1);
  return [...ids][0] as string;
}

describe('invariant 3: admission is idempotent', () => {
  it('the same key again reports the same run', async () => {
    const r = await repoWithSlowPass(0);
    const first = await runCli(['review', '--head', 'topic', '--json'], { cwd: r.dir });
    const again = await runCli(['review', '--head', 'topic', '--json'], { cwd: r.dir });
    expect(first.json).toMatchObject({ admitted: 'created', outcome: 'clear' });
    expect(again.json).toMatchObject({ admitted: 'existing', runId: first.json?.runId, outcome: 'clear' });
    expect(again.code).toBe(0);
    expect(r.counts().reviewer).toBe(1);
  });

  it('6 processes racing review/enqueue on one revision create one run (SQLite file)', async () => {
    const r = await repoWithSlowPass(300);
    const id = expectOneRun(await race(r, testEnv()));
    const store = await openStore('sqlite:.revloop/ledger.db', { repoRoot: r.dir });
    try {
      expect((await store.listRuns()).map((x) => x.id)).toEqual([id]);
      // One run, one reviewer call: the losers joined the winner's run, they did not re-review.
      expect(await store.listAttempts(id)).toHaveLength(1);
    } finally {
      await store.close();
    }
  });

  it('6 processes racing review/enqueue on one revision create one run (PostgreSQL)', async () => {
    const r = await repoWithSlowPass(300);
    const id = expectOneRun(await race(r, testEnv({ REVLOOP_STORE: db.url })));
    const store = await openStore(db.url);
    try {
      expect((await store.listRuns()).map((x) => x.id)).toEqual([id]);
      expect(await store.listAttempts(id)).toHaveLength(1);
    } finally {
      await store.close();
    }
  });
});

describe('invariant 4: a push during a run supersedes it', () => {
  it('aborts superseded with exit 3, and review again admits the new revision as a new run', async () => {
    const r = await makeReviewRepo({ config: (a) => baseConfig(a) });
    repos.push(r);
    // First call: push to the change's branch in the user's repository, then pass.
    r.plan({ reviewer: [{ call: 1, actions: ['pushMain'], reply: pass }, { reply: pass }] });
    const first = await runCli(['review', '--head', 'topic', '--json'], { cwd: r.dir });
    expect(first.code, first.stderr).toBe(3);
    expect(first.json).toMatchObject({ status: 'aborted', outcome: null, reason: 'superseded' });
    expect(first.stderr).toMatch(/aborted \(superseded\): refs\/heads\/topic moved from/);
    const moved = r.repo.git(['rev-parse', 'topic']);
    expect(moved).not.toBe(r.head);

    const second = await runCli(['review', '--head', 'topic', '--json'], { cwd: r.dir });
    expect(second.code, second.stderr).toBe(0);
    expect(second.json).toMatchObject({
      admitted: 'created',
      status: 'completed',
      outcome: 'clear',
      head: moved,
    });
    expect(second.json?.runId).not.toBe(first.json?.runId);
    expect(second.json?.change).toBe('topic');
    // The superseded run's review result was rejected: no completed stage, no findings.
    const store = await openStore('sqlite:.revloop/ledger.db', { repoRoot: r.dir });
    try {
      const oldRun = first.json?.runId as string;
      expect((await store.listStages(oldRun)).filter((s) => s.stage === 'review')).toHaveLength(0);
      expect(await store.listFindings(oldRun)).toHaveLength(0);
    } finally {
      await store.close();
    }
  });

  it('freezes the full ref a short name stood for: a tag of the same name made mid-run is not a push', async () => {
    const r = await makeReviewRepo({ config: (a) => baseConfig(a) });
    repos.push(r);
    r.plan({ reviewer: [{ call: 1, actions: ['tagSameName'], reply: pass }] });
    const res = await runCli(['review', '--head', 'topic', '--json'], { cwd: r.dir });
    expect(res.code, res.stderr).toBe(0);
    expect(res.json).toMatchObject({ status: 'completed', outcome: 'clear', change: 'topic' });
    const store = await openStore('sqlite:.revloop/ledger.db', { repoRoot: r.dir });
    try {
      const run = await store.getRun(res.json?.runId as string);
      expect(run?.snapshot.headRef).toBe('refs/heads/topic');
    } finally {
      await store.close();
    }
  });
});
