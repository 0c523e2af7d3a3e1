// The queue's own costs on PostgreSQL, the figures docs/scale.md's capacity
// estimate is built from (issue 9):
//   1. admission of distinct revisions with a capacity limit (the serialised path),
//      8 concurrent clients;
//   2. claim latency: 8 clients each looping claimNext + finishRun over 2,000
//      queued runs, against a baseline of the same clients doing a plain
//      primary-key UPDATE of the same table (one round trip); target: claimNext's
//      median latency <= 4x the baseline's;
//   3. controller overhead per round: one in-process worker drives real runs
//      (git repository, command agents that answer at once, the Postgres ledger);
//      overhead = wall time minus the agents' time as the ledger's attempts record it.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ADMIN = process.env.REVLOOP_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const dist = (p) => new URL(`../dist/${p}`, import.meta.url).href;
const AGENT = fileURLToPath(new URL('../test/fixtures/scale-agents/agent.mjs', import.meta.url));
const CLIENTS = 8;
const QUEUED = 2000;
const DRIVEN = 12;

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0;
};
const ms = (t0) => Number(process.hrtime.bigint() - t0) / 1e6;

async function withDb(fn) {
  const pg = (await import('pg')).default;
  const name = `revloop_bench_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: ADMIN });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const u = new URL(ADMIN);
  u.pathname = `/${name}`;
  try {
    return await fn(u.toString(), pg);
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
}

const snapshotFor = (i) => ({
  repo: 'bench',
  change: `c${i}`,
  head: i.toString(16).padStart(40, '0'),
  budgets: { rounds: 1, wallSeconds: 60, costUsd: 0.01 },
});

async function queueFigures(url, pg) {
  const { openPostgresStore } = await import(dist('store/postgres/store.js'));
  const stores = await Promise.all(
    Array.from({ length: CLIENTS }, () => openPostgresStore(url, { poolSize: 1 })),
  );
  // 1. Admission of distinct keys with a capacity limit: the exclusive advisory lock path.
  let next = 0;
  const t0 = process.hrtime.bigint();
  await Promise.all(
    stores.map(async (s) => {
      for (let i = next++; i < QUEUED; i = next++) {
        const r = await s.admit({
          runId: `r${i}`,
          admissionKey: `k${i}`,
          changeKey: `bench#${i}`,
          repo: 'bench',
          snapshotKey: `s${i}`,
          snapshot: snapshotFor(i),
          limits: { maxActive: QUEUED + 1 },
        });
        if (r.kind !== 'created') throw new Error(`admission ${i}: ${r.kind}`);
      }
    }),
  );
  const admitSecs = ms(t0) / 1000;

  // 2. Claim + finish until the queue is empty.
  const owner = (c) => ({ id: `bench:${c}`, host: 'bench', pid: c });
  const claimLat = [];
  const t1 = process.hrtime.bigint();
  let claimed = 0;
  await Promise.all(
    stores.map(async (s, c) => {
      for (;;) {
        const t = process.hrtime.bigint();
        const lease = await s.claimNext(owner(c), 30_000);
        claimLat.push(ms(t));
        if (!lease) return;
        claimed++;
        await s.finishRun(lease, {
          status: 'completed',
          outcome: 'clear',
          stopReason: 'clear',
          reason: null,
          detail: null,
        });
      }
    }),
  );
  const claimSecs = ms(t1) / 1000;

  // Baseline: one primary-key UPDATE of the same rows, same clients.
  const clients = await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      return c;
    }),
  );
  const baseLat = [];
  let k = 0;
  await Promise.all(
    clients.map(async (c) => {
      for (let i = k++; i < QUEUED; i = k++) {
        const t = process.hrtime.bigint();
        await c.query('UPDATE runs SET updated_at = updated_at + 1 WHERE id = $1', [`r${i}`]);
        baseLat.push(ms(t));
      }
    }),
  );
  await Promise.all(clients.map((c) => c.end()));
  await Promise.all(stores.map((s) => s.close()));
  if (claimed !== QUEUED) throw new Error(`claimed ${claimed} of ${QUEUED}`);
  return {
    admitPerSec: QUEUED / admitSecs,
    claimCyclesPerSec: QUEUED / claimSecs,
    claimP50: pct(claimLat, 50),
    claimP99: pct(claimLat, 99),
    baseP50: pct(baseLat, 50),
    baseP99: pct(baseLat, 99),
  };
}

function benchRepo() {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'revloop-bench-worker-')));
  const env = {
    ...process.env,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_AUTHOR_NAME: 'Bench',
    GIT_AUTHOR_EMAIL: 'bench@example.com',
    GIT_COMMITTER_NAME: 'Bench',
    GIT_COMMITTER_EMAIL: 'bench@example.com',
  };
  const git = (...args) => execFileSync('git', args, { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
  git('init', '--quiet', '--initial-branch=main');
  const agent = JSON.stringify([process.execPath, AGENT]);
  writeFileSync(join(dir, 'REVIEW.md'), '# Criteria\n\n1. Shared state is updated under a lock.\n');
  writeFileSync(
    join(dir, 'revloop.config.yaml'),
    `reviewers:\n  - name: correctness\n    command: ${agent}\n  - name: style\n    command: ${agent}\nrefuter:\n  command: ${agent}\n`,
  );
  git('add', '-A');
  git('commit', '--quiet', '-m', 'base');
  for (let i = 0; i < DRIVEN; i++) {
    git('checkout', '--quiet', '-b', `pr-${i}`, 'main');
    writeFileSync(join(dir, `f${i}.ts`), `export const v${i} = ${i};\n`);
    git('add', '-A');
    git('commit', '--quiet', '-m', `change ${i}`);
  }
  git('checkout', '--quiet', 'main');
  return dir;
}

/** Committed transactions in the database so far (the statistics are flushed about once a second). */
async function commits(url) {
  const pg = (await import('pg')).default;
  await new Promise((r) => setTimeout(r, 1500));
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query('SELECT pg_stat_clear_snapshot()');
    const { rows } = await c.query(
      'SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()',
    );
    return Number(rows[0].xact_commit);
  } finally {
    await c.end();
  }
}

/** Bytes of row data in the ledger's tables (without indexes and page overhead). */
async function ledgerBytes(url) {
  const pg = (await import('pg')).default;
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    let total = 0;
    for (const t of [
      'runs',
      'snapshots',
      'changes',
      'rounds',
      'stages',
      'attempts',
      'verdicts',
      'findings',
      'events',
    ]) {
      const { rows } = await c.query(`SELECT coalesce(sum(pg_column_size(t.*)), 0) AS b FROM ${t} t`);
      total += Number(rows[0].b);
    }
    return total;
  } finally {
    await c.end();
  }
}

async function controllerFigures(url) {
  const { openStore } = await import(dist('store/index.js'));
  const { composeDeps } = await import(dist('loop/compose.js'));
  const { admit } = await import(dist('loop/admission.js'));
  const { runWorker } = await import(dist('loop/operations.js'));
  const dir = benchRepo();
  const tmp = mkdtempSync(join(tmpdir(), 'revloop-bench-tmp-'));
  const env = { ...process.env, SCALE_AGENT_MIN_MS: '0', SCALE_AGENT_MAX_MS: '0', TMPDIR: tmp };
  const store = await openStore(url);
  try {
    const deps = composeDeps({ store, repoRoot: dir, env });
    for (let i = 0; i < DRIVEN; i++)
      await admit(deps, { repoDir: dir, baseRef: 'main', headRef: `pr-${i}`, configFrom: 'base' });
    const xacts = await commits(url);
    const t0 = process.hrtime.bigint();
    const { runs } = await runWorker(deps, { concurrency: 1, exitWhenIdle: true });
    const wall = ms(t0);
    const txPerRun = ((await commits(url)) - xacts) / runs;
    const bytesPerRun = (await ledgerBytes(url)) / runs;
    let agentMs = 0;
    let calls = 0;
    let rounds = 0;
    for (const r of await store.listRuns()) {
      if (r.status !== 'completed') throw new Error(`run ${r.id} ended ${r.status}: ${r.detail}`);
      rounds += r.roundsDone;
      for (const a of await store.listAttempts(r.id)) {
        agentMs += (a.endedAt ?? a.startedAt) - a.startedAt;
        calls++;
      }
    }
    return {
      runs,
      rounds,
      calls,
      wallMs: wall,
      agentMs,
      overheadPerRoundMs: (wall - agentMs) / rounds,
      txPerRun,
      bytesPerRun,
    };
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
    rmSync(tmp, { recursive: true, force: true });
  }
}

export default async function bench() {
  const q = await withDb(queueFigures);
  const c = await withDb((url) => controllerFigures(url));
  const ratio = q.claimP50 / q.baseP50;
  return {
    name: 'worker throughput (PostgreSQL queue)',
    target: 'claimNext median latency <= 4x a plain primary-key UPDATE, 8 clients',
    pass: ratio <= 4,
    lines: [
      `admission, distinct revisions, capacity-limited (serialised), ${CLIENTS} clients: ${q.admitPerSec.toFixed(0)} runs/s`,
      `claim: claimNext p50 ${q.claimP50.toFixed(2)} ms, p99 ${q.claimP99.toFixed(2)} ms vs PK UPDATE p50 ${q.baseP50.toFixed(2)} ms, p99 ${q.baseP99.toFixed(2)} ms: ${ratio.toFixed(2)}x (target <= 4x)`,
      `claim + finish cycles, ${CLIENTS} clients over ${QUEUED} queued runs: ${q.claimCyclesPerSec.toFixed(0)} /s`,
      `controller: ${c.runs} runs, ${c.rounds} rounds, ${c.calls} agent calls in ${(c.wallMs / 1000).toFixed(2)} s, agents ${(c.agentMs / 1000).toFixed(2)} s: overhead ${c.overheadPerRoundMs.toFixed(0)} ms per round (one worker lane); ${c.txPerRun.toFixed(0)} committed transactions per run (2 reviewer calls, heartbeats included), ${(c.bytesPerRun / 1024).toFixed(1)} KB of ledger rows per run`,
    ],
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const r = await bench();
  console.log(r.name, r.pass ? 'PASS' : 'MISS');
  for (const l of r.lines) console.log(`  ${l}`);
}
