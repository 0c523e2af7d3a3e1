/**
 * A store fault is not the end of a run. On a PostgreSQL cluster this file
 * owns (never the shared one), the server goes away while a worker holds a
 * run: the worker waits for it, says so once, and drives the run to its end
 * when the server is back, with its record written. A write whose answer was
 * lost after its COMMIT is read back, not taken as the run's end. The verdicts
 * are orders of events (the worker said it was waiting, then the server came
 * back), never times.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Lease } from '../../src/core/ledger.js';
import { admit } from '../../src/loop/admission.js';
import { runWorker } from '../../src/loop/operations.js';
import type { DriveResult } from '../../src/loop/run/driver.js';
import { StoreReadonlyError, StoreUnavailableError } from '../../src/store/errors.js';
import { MIGRATE_LOCK } from '../../src/store/postgres/migrate.js';
import { openPostgresStore } from '../../src/store/postgres/store.js';
import { type OwnCluster, startOwnCluster } from '../helpers/pg-cluster.js';
import { withMethod } from '../helpers/with-method.js';
import {
  type AgentStep,
  baseConfig,
  CLI,
  inProcess,
  makeReviewRepo,
  pass,
  reposRemovedAfterAll,
  runCli,
  testEnv,
} from './helpers.js';

let cluster: OwnCluster;
const repos = reposRemovedAfterAll();
let dbs = 0;

beforeAll(async () => {
  cluster = await startOwnCluster();
}, 180_000);
afterAll(async () => {
  await cluster?.destroy();
});

async function freshDatabase(): Promise<string> {
  const name = `outage_${++dbs}`;
  const c = new pg.Client({ connectionString: cluster.url });
  await c.connect();
  await c.query(`CREATE DATABASE ${name}`);
  await c.end();
  const u = new URL(cluster.url);
  u.pathname = `/${name}`;
  return u.toString();
}

/** Resolves once `query` returns a row with n > 0, asking again after each answer. */
async function untilRows(url: string, query: string, params: unknown[]): Promise<void> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    for (;;) {
      const { rows } = await c.query<{ n: string }>(query, params);
      if (Number(rows[0]?.n) > 0) return;
      await new Promise((r) => setTimeout(r, 50));
    }
  } finally {
    await c.end();
  }
}

/** A review repository on a fresh database of the cluster, its change admitted, the reviewer replying `step`. */
async function admittedRun(step: AgentStep) {
  const url = await freshDatabase();
  const r = await makeReviewRepo({ config: (a) => baseConfig(a) });
  repos.push(r);
  r.plan({ reviewer: [step] });
  const p = await inProcess(r.dir, { url });
  const a = await admit(p.deps, { repoDir: r.dir, headRef: 'topic', configFrom: 'base' });
  if (a.result.kind === 'deferred') throw new Error('deferred');
  return { url, p, runId: a.result.run.id, dir: r.dir };
}

describe('a worker and an unavailable ledger', () => {
  it('waits out a server stopped mid-call and drives the run to a completed end with its record', async () => {
    const { url, p, runId } = await admittedRun({ sleepMs: 500, reply: pass });
    try {
      const events: string[] = [];
      let waiting!: () => void;
      const waited = new Promise<void>((res) => {
        waiting = res;
      });
      const worker = runWorker(p.deps, {
        concurrency: 1,
        exitWhenIdle: true,
        storeEvents: {
          onWait: (err) => {
            events.push(`wait:${(err as { code?: string }).code}`);
            waiting();
          },
          onBack: () => events.push('back'),
        },
      }).finally(() => {
        events.push('worker ended');
        waiting();
      });
      // The reviewer's call is under way: the server goes away before its answer is written.
      await untilRows(url, "SELECT count(*) AS n FROM attempts WHERE run_id = $1 AND class = 'started'", [
        runId,
      ]);
      await cluster.stop('immediate');
      // The server comes back only once the worker has met the outage (or has given up on the run).
      await waited;
      events.push('server back');
      await cluster.start();
      const res = await worker;
      expect(events.slice(0, 3)).toEqual(['wait:store_unavailable', 'server back', 'back']);
      expect(res.runs).toBe(1);
      const run = await p.store.getRun(runId);
      expect(run).toMatchObject({ status: 'completed', outcome: 'clear' });
      expect(run?.recordPath && existsSync(run.recordPath)).toBe(true);
    } finally {
      await p.close();
    }
  }, 240_000);

  it('reads back a run whose ending write lost its answer, and writes the record it was owed', async () => {
    const { p, runId } = await admittedRun({ reply: pass });
    try {
      // The COMMIT that ends the run went through; the connection died before its answer came back.
      let cut = false;
      const store = withMethod(p.store, 'finishRun', (finish) => async (...args) => {
        const row = await finish(...args);
        if (cut) return row;
        cut = true;
        throw new StoreUnavailableError('postgres://127.0.0.1/outage', 'Connection terminated unexpectedly');
      });
      const errors: string[] = [];
      const res = await runWorker(
        { ...p.deps, store },
        { concurrency: 1, exitWhenIdle: true, onError: (_id, err) => errors.push(err.message) },
      );
      expect(cut).toBe(true);
      expect(errors).toEqual([]);
      expect(res.runs).toBe(1);
      const run = await p.store.getRun(runId);
      expect(run).toMatchObject({ status: 'completed', outcome: 'clear' });
      expect(run?.recordPath && existsSync(run.recordPath)).toBe(true);
    } finally {
      await p.close();
    }
  }, 240_000);

  it('a run taken over while its ledger was away is let go: the old owner writes nothing more (invariant 13)', async () => {
    const { p, runId } = await admittedRun({ reply: pass });
    try {
      // The review's completion meets the outage; meanwhile another owner took the run over.
      let taken: Lease | null = null;
      const store = withMethod(p.store, 'completeStage', (complete) => async (...args) => {
        if (taken) return complete(...args);
        const run = await p.store.getRun(runId);
        taken = await p.store.acquireLease(
          runId,
          { id: 'other-host:1:x', host: 'other-host', pid: 1 },
          60_000,
          run?.fencingToken,
        );
        throw new StoreUnavailableError('postgres://127.0.0.1/outage', 'Connection terminated unexpectedly');
      });
      const driven: DriveResult[] = [];
      await runWorker(
        { ...p.deps, store },
        { concurrency: 1, exitWhenIdle: true, onRun: (d) => driven.push(d) },
      );
      expect(taken).not.toBeNull();
      expect(driven.map((d) => d.detached)).toEqual(['fenced_out']);
      const run = await p.store.getRun(runId);
      expect(run).toMatchObject({ status: 'running', fencingToken: taken!.token });
      expect(await p.store.listStages(runId)).toEqual([]);
    } finally {
      await p.close();
    }
  }, 240_000);

  it('gives up on a ledger that stays away past its patience, ending no run', async () => {
    const { url, p, runId } = await admittedRun({ sleepMs: 500, reply: pass });
    try {
      const worker = runWorker(p.deps, { concurrency: 1, exitWhenIdle: true, storePatienceMs: 1_000 });
      await untilRows(url, "SELECT count(*) AS n FROM attempts WHERE run_id = $1 AND class = 'started'", [
        runId,
      ]);
      await cluster.stop('immediate');
      await expect(worker).rejects.toMatchObject({ code: 'store_unavailable' });
      await cluster.start();
      const run = await p.store.getRun(runId);
      expect(run?.status).toBe('running');
    } finally {
      await p.close();
    }
  }, 240_000);
});

describe('a ledger that is read-only or ends sessions', () => {
  it('a process waiting on the schema lock when the server stops exits 5 with one line, never a crash', async () => {
    const url = await freshDatabase();
    const r = await makeReviewRepo({ config: (a) => baseConfig(a) });
    repos.push(r);
    // Another migrator holds the lock: the command waits on it with a checked-out connection.
    const holder = new pg.Client({ connectionString: url });
    await holder.connect();
    holder.on('error', () => {});
    await holder.query('SELECT pg_advisory_lock($1)', [MIGRATE_LOCK]);
    // No patience: this is about the lock wait's end, not the worker's wait for its ledger.
    const cli = runCli(['worker', '--exit-when-idle', '--store-patience', '0', '--store', url], {
      cwd: r.dir,
      timeoutMs: 180_000,
    });
    await untilRows(
      url,
      "SELECT count(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted",
      [],
    );
    await cluster.stop('immediate');
    const res = await cli;
    await cluster.start();
    expect(res.stderr).not.toMatch(/Unhandled|at .*\.js:\d+/);
    expect(res.stderr.trim().split('\n')).toHaveLength(1);
    expect(res.code).toBe(5);
  }, 240_000);

  it('a run whose write met a read-only ledger is not ended by the worker: it exits 5 and the run waits for its next owner', async () => {
    const { p, runId } = await admittedRun({ reply: pass });
    try {
      // The ledger refused one write (turned read-only) and was writable again the next moment:
      // ending the run then would lose it to a fault of the ledger.
      let refused = false;
      const store = withMethod(p.store, 'completeStage', (complete) => async (...args) => {
        if (refused) return complete(...args);
        refused = true;
        throw new StoreReadonlyError(
          'postgres://127.0.0.1/outage',
          'cannot execute UPDATE in a read-only transaction',
        );
      });
      const errors: string[] = [];
      await expect(
        runWorker(
          { ...p.deps, store },
          { concurrency: 1, exitWhenIdle: true, onError: (_id, err) => errors.push(err.message) },
        ),
      ).rejects.toMatchObject({ code: 'store_readonly' });
      expect(errors).toEqual([]);
      expect((await p.store.getRun(runId))?.status).toBe('running');
    } finally {
      await p.close();
    }
  }, 240_000);

  it('a read-only ledger with a current schema is read without migrating', async () => {
    const url = await freshDatabase();
    await (await openPostgresStore(url)).close();
    const admin = new pg.Client({ connectionString: cluster.url });
    await admin.connect();
    await admin.query(
      `ALTER DATABASE ${new URL(url).pathname.slice(1)} SET default_transaction_read_only = on`,
    );
    await admin.end();
    const store = await openPostgresStore(url);
    try {
      expect(await store.listRuns({ limit: 5 })).toEqual([]);
    } finally {
      await store.close();
    }
  }, 120_000);
});

/** `revloop worker` as a real process; `sawLine` resolves when stderr has a line matching `re`. */
function workerCli(dir: string, args: string[]) {
  const child = spawn(process.execPath, [CLI, 'worker', '--exit-when-idle', ...args], {
    cwd: dir,
    env: testEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  let stdout = '';
  let waiters: { re: RegExp; done: () => void }[] = [];
  child.stdout.on('data', (d) => {
    stdout += d;
  });
  child.stderr.on('data', (d) => {
    stderr += d;
    for (const w of waiters) if (w.re.test(stderr)) w.done();
    waiters = waiters.filter((w) => !w.re.test(stderr));
  });
  const exited = new Promise<{ code: number | null; stderr: string; stdout: string }>((res) =>
    child.on('close', (code) => res({ code, stderr, stdout })),
  );
  const sawLine = (re: RegExp) =>
    new Promise<void>((done) => {
      if (re.test(stderr)) done();
      else waiters.push({ re, done });
    });
  return { exited, sawLine };
}

describe('a worker started while its ledger is away', () => {
  it('waits for the ledger with the same lines as a worker that meets an outage, then drives the queued run', async () => {
    const { url, p, runId, dir } = await admittedRun({ reply: pass });
    await p.close();
    await cluster.stop('fast');
    const w = workerCli(dir, ['--store', url, '--store-patience', '600']);
    // The server comes back only once the worker has said it is waiting: an order, not a time.
    await Promise.race([w.sawLine(/waiting up to 600 s/), w.exited]);
    await cluster.start();
    const res = await w.exited;
    expect(res.stderr).toMatch(/revloop worker: .*postgres:\/\/127\.0\.0\.1.*; waiting up to 600 s for it\n/);
    expect(res.stderr).toMatch(/the ledger is back after/);
    expect(res.stderr).not.toMatch(/Unhandled|at .*\.js:\d+/);
    expect(res.code).toBe(0);
    const q = await openPostgresStore(url);
    try {
      const run = await q.getRun(runId);
      expect(run).toMatchObject({ status: 'completed', outcome: 'clear' });
      expect(run?.recordPath && existsSync(run.recordPath)).toBe(true);
    } finally {
      await q.close();
    }
  }, 240_000);

  it('gives up past its patience: one line naming the ledger, exit 5, no run ended', async () => {
    const { url, p, runId, dir } = await admittedRun({ reply: pass });
    await p.close();
    await cluster.stop('fast');
    const res = await workerCli(dir, ['--store', url, '--store-patience', '1']).exited;
    await cluster.start();
    const lines = res.stderr.trim().split('\n');
    expect(lines.at(-1)).toMatch(/postgres:\/\/127\.0\.0\.1:\d+\/outage_\d+/);
    expect(res.stderr).not.toMatch(/Unhandled|at .*\.js:\d+/);
    expect(res.code).toBe(5);
    const q = await openPostgresStore(url);
    try {
      expect((await q.getRun(runId))?.status).toBe('queued');
    } finally {
      await q.close();
    }
  }, 240_000);
});
