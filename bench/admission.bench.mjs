// Admission under contention (invariant 3): 16 processes x 2,000 admissions
// over 500 distinct keys on one fresh PostgreSQL database must create exactly
// 500 runs. Throughput is compared with a plain INSERT ... ON CONFLICT DO
// NOTHING into a table of the same shape, same processes, same run; target:
// at least 50 %. The same pair on one SQLite file is reported for comparison.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const SELF = fileURLToPath(import.meta.url);
const DIST = new URL('../dist/store/index.js', import.meta.url).href;
const PROCS = 16;
const PER_PROC = 2000;
const KEYS = 500;
const ADMIN = process.env.REVLOOP_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

const keyOf = (proc, i) => `key-${(proc * 31 + i) % KEYS}`;
const snapshot = { head: 'h'.repeat(40), budgets: { rounds: 1, wallSeconds: 60, costUsd: 0.01 } };

async function worker([mode, url, proc, startAt]) {
  const p = Number(proc);
  let op;
  let close;
  if (mode === 'admit') {
    const { openStore } = await import(DIST);
    const store = await openStore(url, { busyTimeoutMs: 60_000 });
    let created = 0;
    op = async (i) => {
      const key = keyOf(p, i);
      const r = await store.admit({
        runId: `r-${p}-${i}-${randomBytes(3).toString('hex')}`,
        admissionKey: key,
        changeKey: 'bench#1',
        repo: 'bench',
        snapshotKey: `sk-${key}`,
        snapshot,
        limits: { maxActive: 10_000 },
      });
      if (r.kind === 'created') created++;
      if (r.kind === 'deferred') throw new Error(`deferred: ${r.detail}`);
    };
    close = async () => {
      await store.close();
      return created;
    };
  } else if (url.startsWith('postgres')) {
    const pg = (await import('pg')).default;
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    op = (i) =>
      c.query(
        `INSERT INTO base_runs (id, admission_key, change_key, repo, snapshot_key, status, head, budget_usd, created_at, updated_at)
         VALUES ($1, $2, 'bench#1', 'bench', $3, 'queued', 'h', 0.01, 0, 0)
         ON CONFLICT (admission_key) WHERE status IN ('queued','running','completed') DO NOTHING`,
        [`r-${p}-${i}`, keyOf(p, i), `sk-${keyOf(p, i)}`],
      );
    close = () => c.end();
  } else {
    const Database = (await import('better-sqlite3')).default;
    const db = new Database(url.slice('sqlite:'.length), { timeout: 60_000 });
    db.pragma('synchronous = FULL');
    const ins = db.prepare(
      `INSERT INTO base_runs (id, admission_key, change_key, repo, snapshot_key, status, head, budget_usd, created_at, updated_at)
       VALUES (?, ?, 'bench#1', 'bench', ?, 'queued', 'h', 0.01, 0, 0)
       ON CONFLICT (admission_key) WHERE status IN ('queued','running','completed') DO NOTHING`,
    );
    op = async (i) => ins.run(`r-${p}-${i}`, keyOf(p, i), `sk-${keyOf(p, i)}`);
    close = async () => db.close();
  }
  while (Date.now() < Number(startAt)) await new Promise((r) => setTimeout(r, 1));
  for (let i = 0; i < PER_PROC; i++) await op(i);
  const end = Date.now();
  const created = await close();
  process.stdout.write(JSON.stringify({ end, created: typeof created === 'number' ? created : 0 }));
}

async function phase(mode, url) {
  const startAt = Date.now() + 2500;
  const outs = await Promise.all(
    Array.from({ length: PROCS }, (_, p) =>
      promisify(execFile)(process.execPath, [SELF, 'worker', mode, url, String(p), String(startAt)], {
        maxBuffer: 1 << 20,
      }),
    ),
  );
  const res = outs.map((o) => JSON.parse(o.stdout));
  const secs = (Math.max(...res.map((r) => r.end)) - startAt) / 1000;
  return { opsPerSec: (PROCS * PER_PROC) / secs, secs, created: res.reduce((a, r) => a + r.created, 0) };
}

async function pgTarget() {
  const pg = (await import('pg')).default;
  const name = `revloop_bench_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: ADMIN });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const u = new URL(ADMIN);
  u.pathname = `/${name}`;
  const url = u.toString();
  const { openStore } = await import(DIST);
  await (await openStore(url)).close();
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  await c.query('CREATE TABLE base_runs (LIKE runs INCLUDING ALL)');
  const count = async (t) => Number((await c.query(`SELECT count(*) AS n FROM ${t}`)).rows[0].n);
  return {
    url,
    count,
    drop: async () => {
      await c.end();
      const a = new pg.Client({ connectionString: ADMIN });
      await a.connect();
      await a.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await a.end();
    },
  };
}

async function sqliteTarget() {
  const dir = mkdtempSync(join(tmpdir(), 'revloop-bench-'));
  const path = join(dir, 'ledger.db');
  const { openStore } = await import(DIST);
  await (await openStore(`sqlite:${path}`)).close();
  const Database = (await import('better-sqlite3')).default;
  const db = new Database(path);
  const cols = db.prepare(`SELECT sql FROM sqlite_master WHERE name = 'runs'`).get().sql;
  db.exec(cols.replace(/CREATE TABLE runs/, 'CREATE TABLE base_runs').replace(/REFERENCES \w+ \(\w+\)/g, ''));
  db.exec(
    `CREATE UNIQUE INDEX base_held ON base_runs (admission_key) WHERE status IN ('queued','running','completed')`,
  );
  return {
    url: `sqlite:${path}`,
    count: async (t) => db.prepare(`SELECT count(*) AS n FROM ${t}`).get().n,
    drop: async () => {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export default async function bench() {
  const lines = [];
  let pass = true;
  for (const [label, make] of [
    ['postgres', pgTarget],
    ['sqlite', sqliteTarget],
  ]) {
    const t = await make();
    try {
      const base = await phase('baseline', t.url);
      const adm = await phase('admit', t.url);
      const runs = await t.count('runs');
      const baseRows = await t.count('base_runs');
      const ratio = adm.opsPerSec / base.opsPerSec;
      const exact = runs === KEYS && adm.created === KEYS && baseRows === KEYS;
      if (label === 'postgres') pass = exact && ratio >= 0.5;
      else pass = pass && exact;
      lines.push(
        `${label}: ${PROCS} procs x ${PER_PROC} admissions over ${KEYS} keys -> ${runs} runs (${adm.created} reported created)${exact ? '' : '  WRONG COUNT'}`,
        `${label}: admit ${adm.opsPerSec.toFixed(0)} ops/s (${adm.secs.toFixed(1)} s) vs INSERT ON CONFLICT DO NOTHING ${base.opsPerSec.toFixed(0)} ops/s (${base.secs.toFixed(1)} s): ${(ratio * 100).toFixed(0)} %${label === 'postgres' ? ' (target >= 50 %)' : ' (no target)'}`,
      );
    } finally {
      await t.drop();
    }
  }
  return {
    name: 'admission under contention',
    target: 'postgres admit >= 50 % of plain INSERT ON CONFLICT; exactly 500 runs',
    pass,
    lines,
  };
}

if (process.argv[2] === 'worker') await worker(process.argv.slice(3));
else if (process.argv[1] === SELF) {
  const r = await bench();
  console.log(r.name, r.pass ? 'PASS' : 'MISS');
  for (const l of r.lines) console.log(`  ${l}`);
}
