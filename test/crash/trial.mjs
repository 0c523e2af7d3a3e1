// One kill-harness trial: copy the template, run `revloop review` as a child
// process, SIGKILL it at a planned boundary (REVLOOP_CRASH_AT) or a random
// instant, wait for its orphaned agents to exit, resume (`review` again or
// `resume RUN`), and repeat until an attempt ends on its own with the run
// terminal. Returns what happened; checks.mjs judges it.
import { spawn } from 'node:child_process';
import { cpSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { gitEnv } from './template.mjs';

/**
 * No attempt may take this long: a takeover that waited for the lease to expire would (it takes
 * LEASE_MS at least). Far above a whole loop on a loaded 2-core machine (one took 91 s there),
 * so only a wait for the lease, never the machine's speed, reaches it.
 */
export const ATTEMPT_LIMIT_MS = 600_000;
/** Lease TTL of the controller: long, so only the dead-pid rule can explain a quick takeover. */
export const LEASE_MS = 900_000;
const MAX_ATTEMPTS = 10;

const TERMINAL = new Set(['completed', 'failed', 'aborted', 'timed_out', 'unknown']);
const STAGE_ORDER = ['review', 'refute', 'decide', 'fix', 'checks'];

/** Reads the ledger without writing (no controller is running when it is called). */
export function readLedger(dir) {
  const path = join(dir, '.revloop', 'ledger.db');
  let db;
  try {
    db = new Database(path, { readonly: true, fileMustExist: true });
  } catch {
    return null;
  }
  try {
    const all = (sql) => db.prepare(sql).all();
    return {
      integrity: db.pragma('integrity_check', { simple: true }),
      runs: all('SELECT * FROM runs ORDER BY created_at'),
      rounds: all('SELECT * FROM rounds'),
      stages: all('SELECT * FROM stages'),
      attempts: all('SELECT * FROM attempts ORDER BY call_key, attempt_no'),
      verdicts: all('SELECT * FROM verdicts'),
    };
  } catch (err) {
    // A ledger created but not yet migrated when the kill landed has no tables.
    // So does one killed while SQLite was creating it, before it was switched to WAL: its hot
    // rollback journal cannot be rolled back read-only (SQLITE_READONLY_ROLLBACK); the next
    // controller to open it rolls it back, to nothing (seen once in 1,000 trials).
    if (/no such table/.test(err.message) || err.code === 'SQLITE_READONLY_ROLLBACK')
      return { integrity: 'ok', runs: [], rounds: [], stages: [], attempts: [], verdicts: [] };
    throw err;
  } finally {
    db.close();
  }
}

/** Where a random kill landed, read from the ledger it left. */
export function killSite(ledger) {
  const run = ledger?.runs.at(-1);
  if (!run) return 'admission';
  if (TERMINAL.has(run.status)) return 'after:finish';
  const open = ledger.attempts.filter((a) => a.run_id === run.id && a.class === 'started');
  if (open.length > 0) return `call:${open[0].stage}`;
  const done = ledger.stages
    .filter((s) => s.run_id === run.id)
    .map((s) => [s.round, STAGE_ORDER.indexOf(s.stage)])
    .sort((a, b) => a[0] - b[0] || a[1] - b[1])
    .at(-1);
  if (!done) return 'in:checks';
  const [round, i] = done;
  if (round === 0) return 'in:review';
  return `in:${STAGE_ORDER[(i + 1) % STAGE_ORDER.length] ?? 'finish'}`;
}

/** Pids of live processes started for this trial (they inherit CRASH_LOG=<log>). */
function trialProcesses(log) {
  const needle = Buffer.from(`CRASH_LOG=${log}\0`);
  const pids = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/environ`).includes(needle)) {
        const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
        if (!/^\d+ \(.*\) Z/.test(stat)) pids.push(Number(name));
      }
    } catch {
      // gone, or not ours
    }
  }
  return pids;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** A killed controller leaves its agents running (own process groups): wait until they are gone. */
async function waitForOrphans(log) {
  // Generous: an orphan that is only slow to exit (a loaded machine) is not one that outlived the kill.
  const until = Date.now() + 120_000;
  await sleep(30);
  while (Date.now() < until) {
    if (trialProcesses(log).length === 0) return true;
    await sleep(25);
  }
  return false;
}

/**
 * Runs the CLI in its own process group. A timed kill hits the controller
 * alone, or (`group`) the controller with the git commands it is running, as
 * a container kill would; the agents and checks lead groups of their own and
 * live on either way.
 */
function runCli(cli, args, cwd, env, killAfterMs, group) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(process.execPath, [cli, ...args], {
      cwd,
      env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b) => {
      stdout += b;
    });
    child.stderr.on('data', (b) => {
      stderr += b;
    });
    let timerKilled = false;
    const timer =
      killAfterMs === undefined
        ? undefined
        : setTimeout(() => {
            timerKilled = true;
            try {
              process.kill(group ? -child.pid : child.pid, 'SIGKILL');
            } catch {
              // already gone
            }
          }, killAfterMs);
    const limit = setTimeout(() => child.kill('SIGKILL'), ATTEMPT_LIMIT_MS);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      clearTimeout(limit);
      resolve({ code, signal, stdout, stderr, timerKilled, ms: Date.now() - started });
    });
  });
}

/**
 * Runs one trial. `plan` lists the kills in order: `{ at: 'call:fix', nth: 2 }`
 * (REVLOOP_CRASH_AT) or `{ afterMs: 800, group? }` (a timer). `pick()` in [0,1) picks
 * `review` or `resume` for each attempt after a kill.
 */
export async function runTrial({ template, dir, cli, plan, pick, agentEnv }) {
  rmSync(dir, { recursive: true, force: true });
  cpSync(template, dir, { recursive: true });
  const log = `${dir}.agents.log`;
  writeFileSync(log, '');
  const kills = [];
  const attempts = [];
  const problems = [];
  let runId = null;
  for (let a = 0; a < MAX_ATTEMPTS; a++) {
    const kill = plan[a];
    const resume = a > 0 && runId !== null && pick() < 0.5;
    const args = resume
      ? ['resume', runId, '--json']
      : ['review', '--base', 'main', '--head', 'feature', '--json'];
    const env = {
      ...gitEnv(),
      ...agentEnv,
      CRASH_LOG: log,
      REVLOOP_LEASE_MS: String(LEASE_MS),
      ...(kill?.at ? { REVLOOP_CRASH_AT: `${kill.at}@${kill.nth}` } : {}),
    };
    const res = await runCli(cli, args, dir, env, kill?.afterMs, kill?.group);
    attempts.push({ command: args[0], code: res.code, signal: res.signal, ms: res.ms, after: a > 0 });
    if (res.ms >= ATTEMPT_LIMIT_MS) problems.push(`attempt ${a} (${args[0]}) hung for ${res.ms} ms`);
    const killed = res.signal === 'SIGKILL' && res.ms < ATTEMPT_LIMIT_MS;
    if (killed) {
      if (!(await waitForOrphans(log))) problems.push(`agents of attempt ${a} outlived the kill by 120 s`);
      const ledger = readLedger(dir);
      runId = ledger?.runs.at(-1)?.id ?? runId;
      kills.push({
        site: kill?.at ?? killSite(ledger),
        planned: kill?.at ? 'boundary' : kill?.group ? 'group' : 'random',
        command: args[0],
      });
      continue;
    }
    if (kill)
      kills.push({ site: kill.at ?? 'random', planned: kill.at ? 'boundary' : 'random', missed: true });
    const ledger = readLedger(dir);
    runId = ledger?.runs.at(-1)?.id ?? runId;
    if (![0, 1, 3].includes(res.code ?? -1)) {
      problems.push(
        `attempt ${a} (${args.join(' ')}) exited ${res.code ?? res.signal}: ${res.stderr.trim().split('\n').slice(-3).join(' | ')}`,
      );
      break;
    }
    let json = null;
    try {
      json = JSON.parse(res.stdout);
    } catch {
      problems.push(`attempt ${a} (${args[0]}) printed no JSON: ${res.stdout.slice(0, 200)}`);
      break;
    }
    if (TERMINAL.has(json.status)) return { dir, log, kills, attempts, problems, final: json };
  }
  problems.push(`no terminal run after ${MAX_ATTEMPTS} attempts`);
  return { dir, log, kills, attempts, problems, final: null };
}
