/**
 * Leases across worker processes on PostgreSQL (invariant 13): SIGTERM lets
 * the current call finish and releases the lease for another worker; a worker
 * frozen past its lease (SIGSTOP) is taken over, and its late writes are
 * refused when it wakes (SIGCONT), with one verdict per call key in the end.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/pg.js';
import {
  cli,
  cliEnv,
  enqueue,
  finished,
  type Machine,
  makeScaleRepo,
  type ScaleRepo,
  spawnCli,
  workerLines,
} from './scale-repo.js';

let db: TestDatabase;
let repo: ScaleRepo;
let ci: Machine;
let m1: Machine;
let m2: Machine;

beforeAll(async () => {
  db = await createTestDatabase('revloop_scale_lease');
  repo = await makeScaleRepo(3);
  ci = repo.clone('ci');
  m1 = repo.clone('m1');
  m2 = repo.clone('m2');
});

afterAll(async () => {
  await repo?.cleanup();
  await db?.drop();
});

const sql = async <T extends pg.QueryResultRow>(text: string, args: unknown[] = []): Promise<T[]> => {
  const c = new pg.Client({ connectionString: db.url });
  await c.connect();
  try {
    return (await c.query<T>(text, args)).rows;
  } finally {
    await c.end();
  }
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(what: string, check: () => boolean | Promise<boolean>, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

const logLines = (path: string): { pid: number; key: string; role: string }[] => {
  try {
    return readFileSync(path, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
  } catch {
    return [];
  }
};

const workerArgs = (m: Machine) => [
  'worker',
  '--repo',
  m.dir,
  '--store',
  db.url,
  '--exit-when-idle',
  '--json',
];

describe('worker leases on PostgreSQL', () => {
  it('SIGTERM during a slow agent call: the call finishes, the lease is released, another worker ends the run', async () => {
    await db.truncate();
    const runId = (JSON.parse((await enqueue(ci, db.url, 'pr-0')).stdout) as { runId: string }).runId;
    const log = join(m1.tmp, 'sigterm-agent.log');
    writeFileSync(log, '');
    const slow = spawnCli(
      workerArgs(m1),
      // Slow enough that the signal lands inside the call however long a loaded machine takes to see it start.
      cliEnv(m1, { SCALE_AGENT_SLOW_MS: '5000', SCALE_AGENT_LOG: log }),
      m1.dir,
    );
    const slowDone = finished(slow);
    await until('the first agent call', () => logLines(log).length === 1);
    slow.kill('SIGTERM');
    const a = await slowDone;
    // It waited for the call instead of killing it (its verdict is kept, below), and exited cleanly.
    expect(a.code, a.stderr).toBe(0);
    expect(workerLines(a.stdout)).toEqual([
      expect.objectContaining({ runId, status: 'running', detached: 'signal' }),
    ]);
    const [held] = await sql<{ status: string; lease_owner: unknown; fencing_token: string }>(
      'SELECT status, lease_owner, fencing_token FROM runs WHERE id = $1',
      [runId],
    );
    expect(held).toEqual({ status: 'running', lease_owner: null, fencing_token: '1' });
    // The finished call's verdict was kept: the next worker does not pay for it again.
    expect(await sql('SELECT call_key FROM verdicts WHERE run_id = $1', [runId])).toHaveLength(1);

    const b = await cli(workerArgs(m2), cliEnv(m2, { SCALE_AGENT_LOG: log }), m2.dir);
    expect(b.code, b.stderr).toBe(0);
    expect(workerLines(b.stdout)).toEqual([
      expect.objectContaining({ runId, status: 'completed', detached: null }),
    ]);
    // Two reviewer calls in all, each made once.
    expect(new Set(logLines(log).map((l) => l.key)).size).toBe(2);
    expect(logLines(log)).toHaveLength(2);
  }, 300_000);

  it('a worker frozen past its lease is fenced out: the taker finishes the run, the late writes are refused', async () => {
    await db.truncate();
    const runId = (JSON.parse((await enqueue(ci, db.url, 'pr-0')).stdout) as { runId: string }).runId;
    const log = join(m1.tmp, 'fence-agent.log');
    writeFileSync(log, '');
    const lease = { REVLOOP_LEASE_MS: '1000' };
    const stale = spawnCli(
      workerArgs(m1),
      // Slower than a loaded machine's delay in freezing it: its verdict is never recorded before SIGSTOP.
      cliEnv(m1, { ...lease, SCALE_AGENT_SLOW_MS: '5000', SCALE_AGENT_LOG: log }),
      m1.dir,
    );
    const staleDone = finished(stale);
    await until('the first agent call', () => logLines(log).length === 1);
    const [first] = await sql<{ ttl: string }>(
      'SELECT lease_expires_at - revloop_now_ms() AS ttl FROM runs WHERE id = $1',
      [runId],
    );
    expect(Number(first?.ttl)).toBeLessThanOrEqual(1000); // REVLOOP_LEASE_MS reached the worker
    stale.kill('SIGSTOP');
    // Its agent (its own process group) still answers; nobody reads it until SIGCONT.
    await until('the lease to expire', async () => {
      const [r] = await sql<{ expired: boolean }>(
        'SELECT lease_expires_at <= revloop_now_ms() AS expired FROM runs WHERE id = $1',
        [runId],
      );
      return r?.expired === true;
    });
    const taker = await cli(workerArgs(m2), cliEnv(m2, { ...lease, SCALE_AGENT_LOG: log }), m2.dir);
    expect(taker.code, taker.stderr).toBe(0);
    expect(workerLines(taker.stdout), taker.stderr).toEqual([
      expect.objectContaining({ runId, status: 'completed', detached: null }),
    ]);
    const before = await sql<{ call_key: string }>('SELECT call_key FROM verdicts WHERE run_id = $1', [
      runId,
    ]);

    stale.kill('SIGCONT');
    const a = await staleDone;
    expect(a.code, a.stderr).toBe(0);
    // Its late write carried token 1; the run's token is 2: refused (FencedOutError), the run left alone.
    expect(workerLines(a.stdout)).toEqual([expect.objectContaining({ runId, detached: 'fenced_out' })]);
    const [run] = await sql<{ status: string; outcome: string; fencing_token: string }>(
      'SELECT status, outcome, fencing_token FROM runs WHERE id = $1',
      [runId],
    );
    expect(run).toEqual({ status: 'completed', outcome: 'clear', fencing_token: '2' });
    const after = await sql<{ call_key: string; n: string }>(
      'SELECT call_key, count(*) AS n FROM verdicts WHERE run_id = $1 GROUP BY call_key',
      [runId],
    );
    expect(after.map((r) => r.call_key).sort()).toEqual(before.map((r) => r.call_key).sort());
    expect(after.every((r) => r.n === '1')).toBe(true);
    // The frozen worker's call was made again by the taker under the same call key: 3 agent runs, 2 verdicts.
    const calls = logLines(log);
    expect(calls).toHaveLength(3);
    expect(new Set(calls.map((c) => c.key)).size).toBe(2);
  }, 300_000);
});
