/**
 * Chaos on one PostgreSQL (issue 9, invariants 3, 6, 13): 8 worker processes
 * (`revloop worker --exit-when-idle`) on 4 "machines" (clones, each with its
 * own TMPDIR) drain ~30 enqueued runs whose agents take 20-200 ms per call,
 * while the test SIGKILLs workers holding runs (and starts replacements, so
 * the queue drains) and freezes others with SIGSTOP past their 1.5 s lease,
 * then wakes them with SIGCONT so their late writes meet a newer token.
 *
 * Asserted: every run completes with the outcome its branch calls for;
 * exactly one verdict per call key and the expected calls per run; the woken
 * workers were fenced out (their writes refused). The counts are printed.
 */
import type { ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { admit } from '../../src/loop/admission.js';
import { composeDeps } from '../../src/loop/compose.js';
import { openStore } from '../../src/store/index.js';
import { createTestDatabase, type TestDatabase } from '../helpers/pg.js';
import {
  type CliResult,
  cliEnv,
  enqueue,
  finished,
  type Machine,
  makeScaleRepo,
  type ScaleRepo,
  spawnCli,
  workerLines,
} from './scale-repo.js';

const RUNS = 30;
const WORKERS = 8;
const MACHINES = 4;
const LEASE_MS = 1500;
const KILLS = 10;
const FREEZES = 3;
/** Generous: on a loaded 2-core machine the 8 workers' agents and git processes share the cores with everything else. */
const DEADLINE_MS = 420_000;

let db: TestDatabase;
let repo: ScaleRepo;
let ci: Machine;
let machines: Machine[];
let pool: pg.Pool;

beforeAll(async () => {
  db = await createTestDatabase('revloop_scale_chaos');
  repo = await makeScaleRepo(RUNS);
  ci = repo.clone('ci');
  machines = Array.from({ length: MACHINES }, (_, i) => repo.clone(`m${i}`));
  pool = new pg.Pool({ connectionString: db.url, max: 2 });
});

afterAll(async () => {
  await pool?.end();
  await repo?.cleanup();
  await db?.drop();
});

const sql = async <T extends pg.QueryResultRow>(text: string, args: unknown[] = []) =>
  (await pool.query<T>(text, args)).rows;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Slot {
  machine: Machine;
  child: ChildProcess | null;
  done: Promise<CliResult> | null;
  /** When the last process of this slot exited on its own (idle), to pace respawns. */
  idleSince: number;
  frozen: boolean;
}

it('8 workers, random SIGKILLs and SIGSTOP past the lease: every run completes, one verdict per call key, late writes refused', async () => {
  const t0 = Date.now();
  // Enqueue from a CI checkout: the first through the CLI, the rest in this process through the
  // same admission code (the CLI's cost is node start-up, which queue.test.ts already pays).
  const first = await enqueue(ci, db.url, repo.branches[0]!);
  expect(first.code, first.stderr).toBe(0);
  const store = await openStore(db.url);
  try {
    const deps = composeDeps({ store, repoRoot: ci.dir, env: cliEnv(ci) });
    for (const b of repo.branches.slice(1)) {
      const a = await admit(deps, {
        repoDir: ci.dir,
        baseRef: 'origin/main',
        headRef: `origin/${b}`,
        change: b,
        configFrom: 'base',
      });
      expect(a.result.kind).toBe('created');
    }
  } finally {
    await store.close();
  }
  const enqueuedAt = Date.now();

  const log = join(ci.tmp, 'chaos-agent.log');
  writeFileSync(log, '');
  const results: CliResult[] = [];
  let spawned = 0;
  const slots: Slot[] = Array.from({ length: WORKERS }, (_, i) => ({
    machine: machines[i % MACHINES]!,
    child: null,
    done: null,
    idleSince: 0,
    frozen: false,
  }));
  const start = (s: Slot) => {
    const child = spawnCli(
      ['worker', '--repo', s.machine.dir, '--store', db.url, '--exit-when-idle', '--json'],
      cliEnv(s.machine, { REVLOOP_LEASE_MS: String(LEASE_MS), SCALE_AGENT_LOG: log }),
      s.machine.dir,
    );
    spawned++;
    s.child = child;
    s.done = finished(child).then((r) => {
      results.push(r);
      if (s.child === child) {
        s.child = null;
        s.idleSince = Date.now();
      }
      return r;
    });
  };
  for (const s of slots) start(s);

  const open = async () =>
    Number(
      (await sql<{ n: string }>(`SELECT count(*) AS n FROM runs WHERE status IN ('queued','running')`))[0]?.n,
    );
  const claimable = async () =>
    Number(
      (
        await sql<{ n: string }>(
          `SELECT count(*) AS n FROM runs WHERE status = 'queued'
             OR (status = 'running' AND (lease_owner IS NULL OR lease_expires_at <= revloop_now_ms()))`,
        )
      )[0]?.n,
    );
  /** Slots whose worker holds a live lease on a running run, with that run. */
  const holders = async () => {
    const rows = await sql<{ id: string; pid: number; token: string }>(
      `SELECT id, (lease_owner->>'pid')::int AS pid, fencing_token AS token FROM runs
       WHERE status = 'running' AND lease_owner IS NOT NULL AND lease_expires_at > revloop_now_ms()`,
    );
    return rows.flatMap((r) => {
      const s = slots.find((x) => x.child?.pid === r.pid && !x.frozen);
      return s ? [{ slot: s, runId: r.id, token: Number(r.token) }] : [];
    });
  };

  let kills = 0;
  let freezes = 0;
  let takenOver = 0;
  const thaws: Promise<void>[] = [];
  let nextChaos = Date.now() + 400;
  while ((await open()) > 0) {
    if (Date.now() - t0 > DEADLINE_MS) throw new Error('the queue did not drain in time');
    // Keep up to 8 workers: a killed or idle-exited one is restarted when there is something to
    // claim (a queued run, or a killed worker's run once its lease expired), so the queue drains
    // without a churn of workers that start only to find nothing claimable.
    if (slots.some((s) => !s.child && !s.frozen) && (await claimable()) > 0)
      for (const s of slots) if (!s.child && !s.frozen && Date.now() - s.idleSince > 100) start(s);
    if (Date.now() >= nextChaos && (kills < KILLS || freezes < FREEZES)) {
      const h = await holders();
      const pick = h[Math.floor(Math.random() * h.length)];
      if (pick) {
        // Events 1, 4, 7 are freezes (early, so they happen however fast the queue drains), the rest kills.
        if (freezes < FREEZES && ((kills + freezes) % 3 === 1 || kills >= KILLS)) {
          freezes++;
          thaws.push(freezeUntilTakenOver(pick.slot, pick.runId, pick.token));
        } else {
          kills++;
          pick.slot.child?.kill('SIGKILL');
        }
        nextChaos = Date.now() + 250 + Math.random() * 400;
      }
    }
    await sleep(50);
  }
  await Promise.all(thaws);
  await Promise.all(slots.map((s) => s.done));
  const drainedAt = Date.now();

  /** SIGSTOP a worker holding `runId`; SIGCONT it once another worker holds a newer token (or the run ended). */
  async function freezeUntilTakenOver(s: Slot, runId: string, token: number): Promise<void> {
    s.frozen = true;
    s.child?.kill('SIGSTOP');
    const deadline = Date.now() + 30_000;
    for (;;) {
      const [r] = await sql<{ token: string; status: string }>(
        'SELECT fencing_token AS token, status FROM runs WHERE id = $1',
        [runId],
      );
      // Taken over; or it ended before the stop landed; or (frozen inside a transaction, row locked) nobody can take it.
      if (Number(r?.token) > token) {
        takenOver++;
        break;
      }
      if ((r?.status !== 'running' && r?.status !== 'queued') || Date.now() > deadline) break;
      await sleep(50);
    }
    s.child?.kill('SIGCONT');
    await s.done;
    s.frozen = false;
  }

  // Every run completed, with the outcome its branch's change calls for.
  const runs = await sql<{ id: string; status: string; outcome: string; change: string; token: string }>(
    `SELECT r.id, r.status, r.outcome, s.snapshot->>'change' AS change, r.fencing_token AS token
     FROM runs r JOIN snapshots s USING (snapshot_key)`,
  );
  expect(runs).toHaveLength(RUNS);
  const kindOf = (change: string) => Number(change.slice(3)) % 3; // 0 clean, 1 refuted noise, 2 real bug
  for (const r of runs) {
    expect([r.change, r.status]).toEqual([r.change, 'completed']);
    expect([r.change, r.outcome]).toEqual([r.change, kindOf(r.change) === 2 ? 'findings' : 'clear']);
  }
  // Exactly one verdict per call key, and exactly the calls each run needs: two reviewers, plus the refuter on a BUG line.
  const verdicts = await sql<{ run_id: string; call_key: string }>('SELECT run_id, call_key FROM verdicts');
  expect(new Set(verdicts.map((v) => v.call_key)).size).toBe(verdicts.length);
  const perRun = new Map<string, number>();
  for (const v of verdicts) perRun.set(v.run_id, (perRun.get(v.run_id) ?? 0) + 1);
  for (const r of runs)
    expect([r.change, perRun.get(r.id)]).toEqual([r.change, kindOf(r.change) === 0 ? 2 : 3]);

  // Fenced out: workers woken after a takeover whose late write was refused (FencedOutError).
  const lines = results.flatMap((r) => workerLines(r.stdout));
  const fencedOut = lines.filter((l) => l.detached === 'fenced_out').length;
  const takeovers = runs.reduce((n, r) => n + Number(r.token) - 1, 0);
  const invocations = readFileSync(log, 'utf8').split('\n').filter(Boolean).length;
  const internal = results.filter((r) => /internal error/.test(r.stderr));
  const figures = {
    runs: RUNS,
    workers: WORKERS,
    workerProcesses: spawned,
    sigkills: kills,
    sigstops: freezes,
    sigstopsTakenOver: takenOver,
    takeovers,
    fencedOutWorkers: fencedOut,
    verdicts: verdicts.length,
    agentInvocations: invocations,
    callsMadeAgain: invocations - verdicts.length,
    enqueueMs: enqueuedAt - t0,
    drainMs: drainedAt - enqueuedAt,
  };
  console.log(`chaos figures: ${JSON.stringify(figures)}`);
  expect(internal.map((r) => r.stderr)).toEqual([]);
  expect(kills).toBeGreaterThanOrEqual(KILLS / 2);
  expect(freezes).toBeGreaterThanOrEqual(2);
  // Every frozen worker whose run was taken over made a late write on waking, and it was refused.
  expect(takenOver).toBeGreaterThanOrEqual(1);
  // The refusal was seen. How many woken workers report it is the machine's: one starved past its
  // 1.5 s lease (never frozen) is refused too (4 fenced out for 3 taken over, seen under load), and a
  // woken one can meet another error first (1 for 2, seen under load). That no late write landed is
  // what the ledger checks above prove.
  expect(fencedOut).toBeGreaterThanOrEqual(1);
  expect(takeovers).toBeGreaterThanOrEqual(kills / 2);
}, 480_000);
