/**
 * The queue across processes on PostgreSQL (issue 9): `review --store postgres://`
 * end to end, `enqueue` (admit only) then `worker --exit-when-idle` draining it,
 * and admission limits answered `deferred` with the limit named (invariant 3).
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
  type Machine,
  makeScaleRepo,
  type ScaleRepo,
  workerLines,
} from './scale-repo.js';

let db: TestDatabase;
let repo: ScaleRepo;
let ci: Machine;
let box: Machine;

beforeAll(async () => {
  db = await createTestDatabase('revloop_scale_queue');
  repo = await makeScaleRepo(6);
  ci = repo.clone('ci');
  box = repo.clone('worker-box');
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

describe('revloop on PostgreSQL', () => {
  it('review --store postgres:// completes a run with subprocess reviewers, and status --store lists it', async () => {
    await db.truncate();
    const r = await cli(
      [
        'review',
        '--repo',
        ci.dir,
        '--store',
        db.url,
        '--base',
        'origin/main',
        '--head',
        'origin/pr-2',
        '--change',
        'pr-2',
        '--json',
      ],
      cliEnv(ci),
      ci.dir,
    );
    expect(r.stderr).toBe('');
    const out = JSON.parse(r.stdout) as { runId: string; status: string; outcome: string };
    expect(out).toMatchObject({ status: 'completed', outcome: 'findings' });
    expect(r.code).toBe(1);

    const st = await cli(['status', '--repo', ci.dir, '--store', db.url, '--json'], cliEnv(ci), ci.dir);
    expect(st.code).toBe(0);
    const runs = (JSON.parse(st.stdout) as { runs: { runId: string; status: string; change: string }[] })
      .runs;
    expect(runs).toEqual([
      expect.objectContaining({ runId: out.runId, status: 'completed', change: 'pr-2' }),
    ]);
  }, 120_000);

  it('enqueue admits only; worker --exit-when-idle --concurrency 2 on another checkout drains the queue and exits', async () => {
    await db.truncate();
    const ids: string[] = [];
    for (const b of repo.branches) {
      const r = await enqueue(ci, db.url, b);
      expect(r.code, r.stderr).toBe(0);
      const a = JSON.parse(r.stdout) as { admitted: string; runId: string; status: string };
      expect(a).toMatchObject({ admitted: 'created', status: 'queued' });
      ids.push(a.runId);
    }
    // Admission is idempotent: the same revision again is the same run.
    const again = JSON.parse((await enqueue(ci, db.url, 'pr-0')).stdout) as {
      admitted: string;
      runId: string;
    };
    expect(again).toEqual(expect.objectContaining({ admitted: 'existing', runId: ids[0] }));

    const w = await cli(
      ['worker', '--repo', box.dir, '--store', db.url, '--concurrency', '2', '--exit-when-idle', '--json'],
      cliEnv(box),
      box.dir,
    );
    expect(w.code, w.stderr).toBe(0);
    const lines = workerLines(w.stdout);
    expect(lines.map((l) => l.runId).sort(), w.stderr).toEqual([...ids].sort());
    expect(lines.every((l) => l.status === 'completed' && l.detached === null)).toBe(true);

    const rows = await sql<{
      id: string;
      status: string;
      outcome: string;
      lease_owner: unknown;
      change: string;
    }>(
      `SELECT r.id, r.status, r.outcome, r.lease_owner, s.snapshot->>'change' AS change
       FROM runs r JOIN snapshots s USING (snapshot_key) ORDER BY r.seq`,
    );
    // clean -> clear; noise (refuted) -> clear; real (upheld) -> findings.
    expect(rows.map((r) => [r.change, r.status, r.outcome, r.lease_owner])).toEqual(
      repo.branches.map((b, i) => [b, 'completed', i % 3 === 2 ? 'findings' : 'clear', null]),
    );
    // Both lanes of the one worker process drove runs: two owners' worth of overlap is not asserted
    // (timing), but every verdict is once per call key.
    const dup = await sql('SELECT call_key FROM verdicts GROUP BY call_key HAVING count(*) > 1');
    expect(dup).toEqual([]);
  }, 120_000);

  it('--max-active defers the admission past capacity (exit 3, limit named); --cost-budget defers on cost', async () => {
    await db.truncate();
    expect((await enqueue(ci, db.url, 'pr-0', ['--max-active', '2'])).code).toBe(0);
    expect((await enqueue(ci, db.url, 'pr-1', ['--max-active', '2'])).code).toBe(0);
    const third = await enqueue(ci, db.url, 'pr-2', ['--max-active', '2']);
    expect(third.code).toBe(3);
    expect(JSON.parse(third.stdout)).toMatchObject({ admitted: 'deferred', runId: null, limit: 'capacity' });
    expect(JSON.parse(third.stdout).detail).toMatch(/2 runs queued or running, capacity 2/);
    // A revision already admitted is answered with its run even at capacity.
    const held = await enqueue(ci, db.url, 'pr-0', ['--max-active', '2']);
    expect(JSON.parse(held.stdout)).toMatchObject({ admitted: 'existing' });

    // Each run is charged its budget ($1) while active: $2 committed, a third needs $3.
    const cost = await enqueue(ci, db.url, 'pr-3', ['--cost-budget', '2.5']);
    expect(cost.code).toBe(3);
    expect(JSON.parse(cost.stdout)).toMatchObject({ admitted: 'deferred', limit: 'cost' });
    expect((await enqueue(ci, db.url, 'pr-3', ['--cost-budget', '3'])).code).toBe(0);
    expect(await sql('SELECT id FROM runs')).toHaveLength(3);

    // Human-readable deferral names the limit too.
    const plain = await cli(
      [
        'enqueue',
        '--repo',
        ci.dir,
        '--store',
        db.url,
        '--base',
        'origin/main',
        '--head',
        'origin/pr-4',
        '--max-active',
        '3',
      ],
      cliEnv(ci),
      ci.dir,
    );
    expect(plain.code).toBe(3);
    expect(plain.stderr).toMatch(/admission deferred \(capacity\)/);
  }, 120_000);

  it('the store comes from REVLOOP_STORE or the trusted config: a working-tree store: naming another ledger is refused (exit 12) and nothing reaches it', async () => {
    await db.truncate();
    const m = repo.clone('configured');
    const cfg = join(m.dir, 'revloop.config.yaml');
    writeFileSync(cfg, `${readFileSync(cfg, 'utf8')}store: ${db.url}\n`);
    const enqueue = ['enqueue', '--repo', m.dir, '--base', 'origin/main', '--head', 'origin/pr-0', '--json'];
    const refused = await cli(enqueue, cliEnv(m), m.dir);
    expect(refused.code, refused.stderr).toBe(12);
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);
    expect(await sql('SELECT id FROM runs')).toEqual([]);
    // The job names the same ledger: the working tree may repeat the value in use.
    const a = await cli(enqueue, cliEnv(m, { REVLOOP_STORE: db.url }), m.dir);
    expect(a.code, a.stderr).toBe(0);
    const runId = (JSON.parse(a.stdout) as { runId: string }).runId;
    expect(await sql('SELECT id FROM runs')).toEqual([{ id: runId }]);
    // Another checkout names the ledger by environment; its worker drives the run.
    const w = await cli(
      ['worker', '--repo', box.dir, '--exit-when-idle', '--json'],
      cliEnv(box, { REVLOOP_STORE: db.url }),
      box.dir,
    );
    expect(workerLines(w.stdout)).toEqual([expect.objectContaining({ runId, status: 'completed' })]);
    const st = await cli(['status', '--repo', m.dir, '--json'], cliEnv(m, { REVLOOP_STORE: db.url }), m.dir);
    expect(JSON.parse(st.stdout).runs).toEqual([expect.objectContaining({ runId, status: 'completed' })]);
  }, 120_000);

  it('enqueue and worker work the same on the embedded SQLite ledger', async () => {
    const store = `sqlite:${box.tmp}/ledger.db`;
    const a = await cli(
      [
        'enqueue',
        '--repo',
        box.dir,
        '--store',
        store,
        '--base',
        'origin/main',
        '--head',
        'origin/pr-1',
        '--json',
      ],
      cliEnv(box),
      box.dir,
    );
    expect(JSON.parse(a.stdout)).toMatchObject({ admitted: 'created', status: 'queued' });
    const capped = await cli(
      [
        'enqueue',
        '--repo',
        box.dir,
        '--store',
        store,
        '--base',
        'origin/main',
        '--head',
        'origin/pr-2',
        '--max-active',
        '1',
        '--json',
      ],
      cliEnv(box),
      box.dir,
    );
    expect(capped.code).toBe(3);
    expect(JSON.parse(capped.stdout)).toMatchObject({ limit: 'capacity' });
    const w = await cli(
      ['worker', '--repo', box.dir, '--store', store, '--exit-when-idle', '--json'],
      cliEnv(box),
      box.dir,
    );
    expect(w.code, w.stderr).toBe(0);
    expect(workerLines(w.stdout)).toEqual([expect.objectContaining({ status: 'completed', detached: null })]);
  }, 120_000);
});
