// The faults of the campaign (campaign.mjs), each on what the campaign owns: its private
// PostgreSQL cluster (never the shared one on 5432) and its own worker processes. Every
// fault ends by putting things back (the server up and writable, the disk free, the
// worker running again), so what the checks judge is how the workers rode it out.
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  closeSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The kinds, with how often each is drawn. */
export const KINDS = {
  'pg-restart-fast': 2,
  'pg-restart-immediate': 2,
  'pg-terminate': 3,
  'pg-down': 1,
  'pg-freeze': 2,
  'pg-readonly': 2,
  'disk-full': 1,
  'worker-kill': 3,
  'worker-freeze': 2,
};

/** One fault drawn from `rand`: its kind and the numbers it needs, all from the seed. */
export function drawFault(rand, o) {
  const total = Object.values(KINDS).reduce((a, b) => a + b, 0);
  let x = rand() * total;
  let kind = 'pg-terminate';
  for (const [k, w] of Object.entries(KINDS)) {
    if (x < w) {
      kind = k;
      break;
    }
    x -= w;
  }
  const between = (lo, hi) => Math.round(lo + rand() * (hi - lo));
  const f = { kind, worker: Math.floor(rand() * o.workers) };
  if (kind === 'pg-down') f.ms = o.downMs;
  // Short campaigns (a short outage) freeze and refuse for shorter too.
  const hold = Math.min(6_000, Math.max(1_500, o.downMs));
  if (kind === 'pg-freeze') f.ms = between(1_000, hold);
  if (kind === 'pg-readonly' || kind === 'disk-full') f.ms = between(1_000, (hold * 2) / 3);
  // Frozen past its lease: the run it holds is taken over while it sleeps.
  if (kind === 'worker-freeze') f.ms = o.leaseSeconds * 1000 + between(1_000, 3_000);
  return f;
}

/** Runs `sql` as the superuser; a fault of the server itself is the caller's to expect. */
export async function adminQuery(url, sql) {
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  c.on('error', () => {});
  await c.connect();
  try {
    return await c.query(sql);
  } finally {
    await c.end().catch(() => {});
  }
}

/** Asks until the server answers (after a restart, a thaw or the end of an outage). */
export async function untilUp(url, limitMs = 120_000) {
  const end = Date.now() + limitMs;
  for (;;) {
    try {
      await adminQuery(url, 'SELECT 1');
      return;
    } catch (err) {
      if (Date.now() > end) throw new Error(`the campaign's cluster did not come back: ${err.message}`);
      await sleep(200);
    }
  }
}

const postmasterPid = (cluster) =>
  Number(readFileSync(join(cluster.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);

/** The postmaster and every process it started (backends, checkpointer, walwriter…). */
function serverPids(cluster) {
  const pm = postmasterPid(cluster);
  const kids = execFileSync('ps', ['-o', 'pid=', '--ppid', String(pm)], { encoding: 'utf8' })
    .split('\n')
    .map((s) => Number(s.trim()))
    .filter((n) => n > 0);
  return [pm, ...kids];
}

/**
 * A tablespace on a small tmpfs of its own, holding the campaign's database: filling the
 * tmpfs is a real disk-full for the ledger's tables (not for WAL, which stays in the data
 * directory). Needs root to mount; null (and the reason) when it cannot be had.
 */
export async function diskFullTablespace(cluster) {
  if (process.getuid?.() !== 0) return { skip: 'mounting a tmpfs needs root' };
  // Under /tmp itself, not a suite's private temp dir: the server runs as `postgres`.
  const mnt = mkdtempSync(join('/tmp', 'revloop-tblspc-'));
  chmodSync(mnt, 0o755);
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=48m', 'tmpfs', mnt], { stdio: 'pipe' });
  } catch (err) {
    rmSync(mnt, { recursive: true, force: true });
    return { skip: `could not mount a tmpfs: ${String(err.stderr ?? err.message).trim()}` };
  }
  const unmount = () => {
    try {
      execFileSync('umount', ['-l', mnt], { stdio: 'pipe' });
      rmSync(mnt, { recursive: true, force: true });
    } catch {}
  };
  try {
    const data = join(mnt, 'pg');
    mkdirSync(data);
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(data, uid, gid);
    await adminQuery(cluster.url, `CREATE TABLESPACE campaign_space LOCATION '${data}'`);
  } catch (err) {
    unmount();
    return { skip: `could not make a tablespace on a tmpfs: ${err.message}` };
  }
  return { fill: join(mnt, 'fill'), unmount };
}

/** Fills the tmpfs to its last page. */
function fillDisk(path) {
  const fd = openSync(path, 'w');
  const block = Buffer.alloc(1 << 16);
  try {
    for (let size = block.length; size >= 4096; ) {
      try {
        writeSync(fd, block, 0, size);
      } catch {
        size /= 2;
      }
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * Injects fault `f` and waits until it is over. `ctx`: { cluster, adminUrl, db, workers, space }.
 * Returns a note when the fault could not be made (its reason), else null.
 */
export async function inject(f, ctx) {
  const { cluster, adminUrl } = ctx;
  switch (f.kind) {
    case 'pg-restart-fast':
    case 'pg-restart-immediate':
      await cluster.stop(f.kind === 'pg-restart-fast' ? 'fast' : 'immediate');
      await cluster.start();
      return null;
    case 'pg-down':
      await cluster.stop('immediate');
      await sleep(f.ms);
      await cluster.start();
      return null;
    case 'pg-terminate':
      await adminQuery(
        adminUrl,
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${ctx.db}' AND pid <> pg_backend_pid()`,
      );
      return null;
    case 'pg-freeze': {
      const pids = serverPids(cluster);
      for (const p of pids) tryKill(p, 'SIGSTOP');
      await sleep(f.ms);
      for (const p of pids) tryKill(p, 'SIGCONT');
      return null;
    }
    case 'pg-readonly':
      await adminQuery(adminUrl, 'ALTER SYSTEM SET default_transaction_read_only = on');
      await adminQuery(adminUrl, 'SELECT pg_reload_conf()');
      await sleep(f.ms);
      await adminQuery(adminUrl, 'ALTER SYSTEM RESET default_transaction_read_only');
      await adminQuery(adminUrl, 'SELECT pg_reload_conf()');
      return null;
    case 'disk-full':
      if (!ctx.space.fill) return ctx.space.skip;
      fillDisk(ctx.space.fill);
      await sleep(f.ms);
      rmSync(ctx.space.fill, { force: true });
      return null;
    case 'worker-kill':
      return ctx.workers.kill(f.worker);
    case 'worker-freeze':
      return ctx.workers.freeze(f.worker, f.ms);
    default:
      throw new Error(`unknown fault ${f.kind}`);
  }
}

function tryKill(pid, sig) {
  try {
    process.kill(pid, sig);
  } catch {}
}
