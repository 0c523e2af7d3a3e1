#!/usr/bin/env node
import { spawnSync } from 'node:child_process';
// The fault campaign: N real `revloop worker` processes on M git clones share a PostgreSQL
// ledger the campaign owns (its own cluster, never the shared one), while runs are enqueued
// and faults drawn from --seed hit the server (restarts, terminated sessions, an outage,
// a freeze, read-only, disk full) and the workers (SIGKILL, SIGSTOP past their lease).
// When every run is over it judges: safety (invariant 1 on every clear, no call recorded
// twice, cost never over-recorded, every record verifies, every replay identical), runs
// lost to a fault, worker crashes, completed runs without a record.
//
//   node test/faults/campaign.mjs [--seed 1] [--runs 150] [--faults 60] [--workers 3]
//        [--clones 2] [--down-seconds 30] [--lease-seconds 3] [--cli dist/cli/main.js]
//        [--keep] [--json]
//
// With --serve it runs the service's scenario instead (serve-scenario.mjs): `revloop serve`
// fed --deliveries signed deliveries (default 140) while --faults (default 4) kill or
// restart the service or the server (--down-seconds default 2); judged on acknowledged
// deliveries lost and runs per revision.
//
// Exit 0 when every target is met (0 of each count), 1 when one is missed, 2 on bad arguments.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { mulberry32 } from '../../dist/sim/prng.js';
import { buildTemplate, git, gitEnv, REVIEWERS } from '../crash/template.mjs';
import { startOwnCluster } from '../helpers/pg-cluster.ts';
import { adminQuery, diskFullTablespace, drawFault, inject, sleep, untilUp } from './faults.mjs';
import { FIX_ELSEWHERE, judge, runNode } from './judge.mjs';
import { serveScenario } from './serve-scenario.mjs';
import { startWorkers } from './workers.mjs';

const ROOT = resolve(import.meta.dirname, '../..');
const USAGE =
  'usage: node test/faults/campaign.mjs [--seed N] [--runs N] [--faults N] [--workers N] [--clones N] [--down-seconds N] [--lease-seconds N] [--cli PATH] [--keep] [--json] [--serve [--deliveries N]]';

function usage(message) {
  process.stderr.write(`fault campaign: ${message}\n${USAGE}\n`);
  process.exit(2);
}
if (process.argv.includes('--help') || process.argv.includes('-h')) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
let o;
try {
  ({ values: o } = parseArgs({
    options: {
      seed: { type: 'string', default: '1' },
      runs: { type: 'string', default: '150' },
      faults: { type: 'string' },
      workers: { type: 'string', default: '3' },
      clones: { type: 'string', default: '2' },
      'down-seconds': { type: 'string' },
      serve: { type: 'boolean', default: false },
      deliveries: { type: 'string', default: '140' },
      'lease-seconds': { type: 'string', default: '3' },
      cli: { type: 'string', default: join(ROOT, 'dist/cli/main.js') },
      keep: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
    },
  }));
} catch (err) {
  usage(err.message.split('\n')[0]);
}
o.faults ??= o.serve ? '4' : '60';
o['down-seconds'] ??= o.serve ? '2' : '30';
for (const name of [
  'seed',
  'runs',
  'faults',
  'workers',
  'clones',
  'down-seconds',
  'lease-seconds',
  'deliveries',
])
  if (!/^\d+$/.test(o[name])) usage(`--${name} must be a whole number, got "${o[name]}"`);
for (const name of ['runs', 'workers', 'clones', 'lease-seconds', 'deliveries'])
  if (Number(o[name]) < 1) usage(`--${name} must be at least 1, got "${o[name]}"`);
const N = (k) => Number(o[k]);
const cli = resolve(o.cli);

const sec = (ms) => Math.round(ms / 100) / 10;
const log = (line) => !o.json && process.stderr.write(`fault campaign: ${line}\n`);

/** The template (main, and one branch r<i> per run off the crash harness's one-bug feature) and its clones. */
function buildRepos(work, runs, clones) {
  const template = join(work, 'template');
  buildTemplate(template, { bugs: 1 });
  const feature = git(template, ['rev-parse', 'feature']);
  const tree = git(template, ['rev-parse', 'feature^{tree}']);
  for (let i = 0; i < runs; i++) {
    // Each run its own change: the feature with a commit whose message alone differs has the same
    // diff, so a distinct empty-blob file makes each head's change its own.
    const blob = spawnSync('git', ['hash-object', '-w', '--stdin'], {
      cwd: template,
      input: `run ${i}\n`,
      env: gitEnv(),
      encoding: 'utf8',
    }).stdout.trim();
    const idx = join(work, 'index');
    const env = gitEnv({ GIT_INDEX_FILE: idx });
    spawnSync('git', ['read-tree', tree], { cwd: template, env });
    spawnSync('git', ['update-index', '--add', '--cacheinfo', `100644,${blob},docs/runs/${i}.md`], {
      cwd: template,
      env,
    });
    const t = spawnSync('git', ['write-tree'], { cwd: template, env, encoding: 'utf8' }).stdout.trim();
    const c = git(template, ['commit-tree', t, '-p', feature, '-m', `run ${i}`]);
    git(template, ['update-ref', `refs/heads/r${i}`, c]);
  }
  git(template, ['checkout', '--quiet', 'main']);
  const dirs = [];
  for (let k = 0; k < clones; k++) {
    const dir = join(work, `clone${k}`);
    git(work, ['clone', '--quiet', template, dir]);
    git(dir, ['fetch', '--quiet', '--update-head-ok', 'origin', 'refs/heads/*:refs/heads/*']);
    dirs.push(dir);
  }
  return dirs;
}

/** `revloop enqueue` of run i from clone i % M; a fault may refuse it: asked again until admitted. */
async function enqueue(i, clones, url) {
  for (let tries = 0; ; tries++) {
    const r = await runNode(
      [cli, 'enqueue', '--base', 'main', '--head', `r${i}`, '--json', '--store', url],
      clones[i % clones.length],
    );
    if (r.code === 0) return JSON.parse(r.stdout).runId;
    if (tries > 200) throw new Error(`enqueue r${i} kept failing: ${r.stderr.trim()}`);
    await sleep(500);
  }
}

async function main() {
  const started = Date.now();
  const seed = N('seed');
  // mulberry32 (the simulator's): every fault, its timing and its target follow from --seed.
  const rand = mulberry32(seed);
  const work = mkdtempSync(join(tmpdir(), 'revloop-faults-'));
  const cluster = await startOwnCluster();
  let space = {};
  const cleanup = async () => {
    await cluster.destroy();
    space.unmount?.();
  };
  try {
    if (o.serve) await serveCampaign(started, seed, rand, work, cluster);
    else
      await campaign(started, seed, rand, work, cluster, (s) => {
        space = s;
      });
  } catch (err) {
    await cleanup();
    throw err;
  }
  await cleanup();
  if (process.exitCode === 0 && !o.keep) rmSync(work, { recursive: true, force: true });
}

async function campaign(started, seed, rand, work, cluster, noteSpace) {
  const db = 'campaign';
  const adminUrl = cluster.url;
  const url = cluster.url.replace(/\/postgres$/, `/${db}`);
  const space = await diskFullTablespace(cluster);
  noteSpace(space);
  await adminQuery(adminUrl, `CREATE DATABASE ${db}${space.fill ? ' TABLESPACE campaign_space' : ''}`);
  const clones = buildRepos(work, N('runs'), N('clones'));
  const setupDone = Date.now();
  log(`cluster on port ${cluster.port}, ${N('clones')} clones, ${N('workers')} workers, work dir ${work}`);
  if (space.skip) log(`disk-full faults skipped: ${space.skip}`);

  const plan = Array.from({ length: N('faults') }, () =>
    drawFault(rand, {
      workers: N('workers'),
      downMs: N('down-seconds') * 1000,
      leaseSeconds: N('lease-seconds'),
    }),
  );
  const gaps = plan.map(() => Math.round(200 + rand() * 800));
  const workers = startWorkers({
    cli,
    url,
    clones,
    workers: N('workers'),
    concurrency: 1,
    leaseSeconds: N('lease-seconds'),
    // Longer than the longest outage: a fault of the campaign is never past a worker's patience.
    patienceSeconds: Math.max(60, 2 * N('down-seconds')),
    logDir: work,
    agentEnv: { CRASH_SLEEP_MS: '20', CRASH_FLAKY: '0' },
  });

  // Runs are enqueued in step with the faults (runs / faults before each), so every fault meets live runs.
  const expected = [];
  let next = 0;
  const enqueueUpTo = async (n) => {
    const batch = [];
    for (; next < Math.min(n, N('runs')); next++) batch.push(enqueue(next, clones, url));
    expected.push(...(await Promise.all(batch)));
  };
  const injected = {};
  const skipped = {};
  const per = plan.length > 0 ? N('runs') / (plan.length + 1) : N('runs');
  for (let k = 0; k < plan.length; k++) {
    await enqueueUpTo(Math.round(per * (k + 1)));
    await sleep(gaps[k]);
    const f = plan[k];
    const note = await inject(f, { cluster, adminUrl, db, workers, space }).catch((err) => err.message);
    await untilUp(adminUrl);
    if (note) skipped[f.kind] = (skipped[f.kind] ?? 0) + 1;
    else injected[f.kind] = (injected[f.kind] ?? 0) + 1;
    log(
      `fault ${k + 1}/${plan.length}: ${f.kind}${f.ms ? ` ${f.ms} ms` : ''}${note ? ` (not made: ${note})` : ''}`,
    );
  }
  await enqueueUpTo(N('runs'));
  const faultsDone = Date.now();

  // Every run over (or the campaign gives up: what is left is counted as lost).
  const deadline = Date.now() + 120_000 + N('runs') * 5_000;
  for (;;) {
    const { rows } = await adminQuery(
      url,
      "SELECT count(*)::int AS n FROM runs WHERE status IN ('queued', 'running')",
    ).catch(() => ({ rows: [{ n: -1 }] }));
    if (rows[0].n === 0 || Date.now() > deadline) break;
    await sleep(500);
  }
  await workers.stop();
  const drained = Date.now();
  log(
    `setup ${sec(setupDone - started)} s, faults ${sec(faultsDone - setupDone)} s, drain ${sec(drained - faultsDone)} s`,
  );
  const verdict = await judge({ url, cli, clones, reviewers: REVIEWERS, exits: workers.exits, expected });
  const summary = {
    seed,
    seconds: Math.round((Date.now() - started) / 1000),
    runs: verdict.ledger.runs.length,
    outcomes: verdict.outcomes,
    faults: Object.values(injected).reduce((a, b) => a + b, 0),
    faultsByKind: injected,
    faultsNotMade: skipped,
    workerStarts: workers.exits.length,
    workerExits5: workers.exits.filter((e) => e.code === 5).length,
    safetyViolations: verdict.safety,
    runsLost: verdict.lost,
    crashes: verdict.crashes,
    recordsMissing: verdict.recordsMissing,
    workDir: work,
  };
  const ok =
    verdict.safety.length + verdict.lost.length + verdict.crashes.length + verdict.recordsMissing.length ===
    0;
  if (o.json) process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
  else print(summary);
  process.exitCode = ok ? 0 : 1;
}

async function serveCampaign(started, seed, rand, work, cluster) {
  const db = 'campaign';
  await adminQuery(cluster.url, `CREATE DATABASE ${db}`);
  log(`cluster on port ${cluster.port}, serve scenario, work dir ${work}`);
  const s = await serveScenario({
    rand,
    cluster,
    adminUrl: cluster.url,
    db,
    work,
    deliveries: N('deliveries'),
    faults: N('faults'),
    downMs: N('down-seconds') * 1000,
    senders: 8,
    log,
  });
  const summary = {
    scenario: 'serve',
    seed,
    seconds: Math.round((Date.now() - started) / 1000),
    ...s,
    workDir: work,
  };
  const bad = ['deliveriesLost', 'deliveriesMissing', 'runsTwice', 'finalHeadsWithoutRun', 'crashes'];
  const ok = s.drained && bad.every((k) => s[k].length === 0);
  if (o.json) process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
  else {
    console.log(`fault campaign, serve scenario, seed ${seed}: ${summary.seconds} s`);
    console.log(
      `deliveries: ${s.deliveriesSent} sent (${s.distinct} distinct), ${s.acknowledged} acknowledged, ${s.recorded} recorded; ${s.unavailable} answered 503, ${s.refusedOrDropped} refused or dropped (sent again)`,
    );
    console.log(`faults: ${s.faults}  ${JSON.stringify(s.faultsByKind)}`);
    console.log(`runs: ${s.runs}; delivery states ${JSON.stringify(s.states)}; drained: ${s.drained}`);
    for (const k of bad)
      console.log(`${k}: ${s[k].length}${s[k].length ? ` (${s[k].slice(0, 5).join('; ')})` : ''}`);
    if (!ok) console.log(`kept for inspection: ${work}`);
  }
  process.exitCode = ok ? 0 : 1;
}

function print(s) {
  const list = (xs) =>
    xs
      .slice(0, 5)
      .map((x) => `\n    ${x}`)
      .join('') + (xs.length > 5 ? `\n    (${xs.length - 5} more)` : '');
  console.log(`fault campaign, seed ${s.seed}: ${s.seconds} s`);
  console.log(`runs: ${s.runs}  ${JSON.stringify(s.outcomes)}`);
  console.log(`faults: ${s.faults}  ${JSON.stringify(s.faultsByKind)}`);
  if (Object.keys(s.faultsNotMade).length) console.log(`faults not made: ${JSON.stringify(s.faultsNotMade)}`);
  console.log(`worker exits: ${s.workerStarts} (exit 5 on a refusing ledger: ${s.workerExits5})`);
  console.log(`safety violations: ${s.safetyViolations.length}${list(s.safetyViolations)}`);
  const elsewhere = s.runsLost.filter((x) => x.endsWith(FIX_ELSEWHERE)).length;
  console.log(
    `runs lost: ${s.runsLost.length}${elsewhere ? ` (${elsewhere} taken over on a clone without their fix commit)` : ''}${list(s.runsLost)}`,
  );
  console.log(`crashes: ${s.crashes.length}${list(s.crashes)}`);
  console.log(`records missing: ${s.recordsMissing.length}${list(s.recordsMissing)}`);
  if (s.safetyViolations.length + s.runsLost.length + s.crashes.length + s.recordsMissing.length)
    console.log(`kept for inspection: ${s.workDir}`);
}

await main();
