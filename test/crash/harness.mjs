#!/usr/bin/env node
// The kill harness (project issue 5): full review loops with real subprocess
// reviewers, refuter, fixer and check, the controller SIGKILLed at every stage
// boundary (REVLOOP_CRASH_AT) and at random instants, resumed with `review`
// (which must take over at once: the dead pid is on this host) or `resume RUN`
// until the run is terminal, and every trial judged by checks.mjs.
//
//   node test/crash/harness.mjs [--trials 300] [--concurrency 3] [--seed 1]
//        [--bugs 2] [--flaky 0.03] [--sleep-ms 30] [--cli dist/cli/main.js] [--json] [--keep]
//        [--min-boundary-hits N]
//
// Progress goes to stderr every 25 trials; SIGTERM or SIGINT stops starting trials and prints
// the summary of those done.
// Exit 0 when no trial violated anything (and every boundary was killed at least
// --min-boundary-hits times), 1 otherwise.
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { judge } from './checks.mjs';
import { buildTemplate, CALC_LINES, REVIEWERS } from './template.mjs';
import { readLedger, runTrial } from './trial.mjs';

const ROOT = resolve(import.meta.dirname, '../..');

const USAGE =
  'usage: node test/crash/harness.mjs [--trials N] [--concurrency N] [--seed N] [--bugs N] [--flaky P] [--sleep-ms N] [--cli PATH] [--json] [--keep] [--min-boundary-hits N]';

/** Bad arguments: one line naming what was wrong, the usage, exit 2 (as scripts/dst.mjs does). */
function usage(message) {
  process.stderr.write(`crash harness: ${message}\n${USAGE}\n`);
  process.exit(2);
}

if (process.argv.includes('--help') || process.argv.includes('-h')) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}

const { values: o } = parseArgsOrUsage({
  options: {
    trials: { type: 'string', default: '300' },
    concurrency: { type: 'string', default: '3' },
    seed: { type: 'string', default: '1' },
    bugs: { type: 'string', default: '2' },
    flaky: { type: 'string', default: '0.03' },
    'sleep-ms': { type: 'string', default: '30' },
    cli: { type: 'string', default: join(ROOT, 'dist/cli/main.js') },
    json: { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
    'min-boundary-hits': { type: 'string', default: '0' },
  },
});

function parseArgsOrUsage(config) {
  try {
    return parseArgs(config);
  } catch (err) {
    return usage(err.message.split('\n')[0]);
  }
}
for (const name of ['trials', 'concurrency', 'seed', 'bugs', 'sleep-ms', 'min-boundary-hits'])
  if (!/^\d+$/.test(o[name])) usage(`--${name} must be a whole number, got "${o[name]}"`);
if (!(Number(o.flaky) >= 0 && Number(o.flaky) < 1))
  usage(`--flaky must be a probability in [0, 1), got "${o.flaky}"`);
const trials = Number(o.trials);
const bugs = Number(o.bugs);
const flaky = Number(o.flaky);
const cli = resolve(o.cli);

/** mulberry32: the plan of every trial follows from --seed and its index. */
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** How often an uncrashed run passes each boundary (rounds = bugs + 1, one fix per bug). */
function boundaryPasses(nBugs) {
  const rounds = nBugs + 1;
  const refutes = (nBugs * (nBugs + 1)) / 2; // round r still has nBugs - r + 1 blockers
  return {
    'before:checks': 1 + nBugs,
    'before:review': rounds,
    'before:refute': rounds,
    'before:decide': rounds,
    'before:fix': nBugs,
    'before:finish': 1,
    'after:finish': 1,
    'call:review': REVIEWERS.length * rounds,
    'call:refute': refutes,
    'call:fix': nBugs,
    'before-complete:checks': 1 + nBugs,
    'before-complete:review': rounds,
    'before-complete:refute': rounds,
    'before-complete:decide': rounds,
    'before-complete:fix': nBugs,
  };
}

function planFor(i, rand, passes, runMs) {
  const names = Object.keys(passes);
  // Half the random kills take the controller's whole process group (its git commands too).
  const randomKill = () => ({ afterMs: Math.floor(50 + rand() * runMs * 1.1), group: rand() < 0.5 });
  // Even trials kill at a boundary (every boundary in turn, a random pass of it), odd ones at a random instant.
  const first =
    i % 2 === 0
      ? (() => {
          const at = names[(i / 2) % names.length];
          return { at, nth: 1 + Math.floor(rand() * passes[at]) };
        })()
      : randomKill();
  const plan = [first];
  // Some trials are killed again while resuming.
  if (rand() < 0.4)
    plan.push(rand() < 0.5 ? randomKill() : { at: names[Math.floor(rand() * names.length)], nth: 1 });
  if (rand() < 0.15) plan.push(randomKill());
  return plan;
}

async function main() {
  const work = mkdtempSync(join(tmpdir(), 'revloop-crash-'));
  const template = join(work, 'template');
  const { head } = buildTemplate(template, { bugs });
  const agentEnv = { CRASH_SLEEP_MS: o['sleep-ms'], CRASH_FLAKY: String(flaky) };
  const expect = {
    reviewers: REVIEWERS,
    calcLines: CALC_LINES,
    featureHead: head,
    cli,
    // A kill never changes the outcome; outages (--flaky) may exhaust a call's retries.
    outcomes: flaky > 0 ? ['completed/clear', 'failed/retries_exhausted'] : ['completed/clear'],
  };
  const started = Date.now();

  // Calibration: uncrashed runs, as many at once as the trials will run, give the outcome
  // to expect and (their median duration) the span of random kills.
  const calib = await Promise.all(
    Array.from({ length: Number(o.concurrency) }, (_, k) =>
      runTrial({ template, dir: join(work, `calibrate${k}`), cli, plan: [], pick: () => 0, agentEnv }),
    ),
  );
  const base = calib[0];
  const baseJudged = judge(base, expect);
  const spans = calib.map((c) => c.attempts[0]?.ms ?? 3000).sort((a, b) => a - b);
  const runMs = spans[Math.floor(spans.length / 2)] ?? 3000;
  const baseRounds = readLedger(base.dir)?.rounds.length ?? 0;
  if (baseJudged.violations.length > 0 || base.final?.outcome !== 'clear') {
    console.error(
      `calibration run failed: ${JSON.stringify(base.final)} ${baseJudged.violations.join('; ')}`,
    );
    process.exit(1);
  }
  for (const c of calib) {
    rmSync(c.dir, { recursive: true, force: true });
    rmSync(c.log, { force: true });
  }

  // SIGTERM/SIGINT: no new trial starts; the summary covers the trials done (a long run on a
  // loaded machine can be cut short and still report exact figures).
  let stopping = false;
  for (const sig of ['SIGTERM', 'SIGINT'])
    process.on(sig, () => {
      stopping = true;
      console.error(`kill harness: ${sig}: finishing the trials under way, then the summary of those done`);
    });
  const passes = boundaryPasses(bugs);
  const seed = Number(o.seed);
  const results = [];
  let next = 0;
  const lane = async () => {
    for (;;) {
      if (stopping) return;
      const i = next++;
      if (i >= trials) return;
      const rand = prng(seed * 1_000_003 + i);
      const plan = planFor(i, rand, passes, runMs);
      const dir = join(work, `t${i}`);
      const trial = await runTrial({ template, dir, cli, plan, pick: rand, agentEnv });
      let judged;
      try {
        judged = judge(trial, expect);
      } catch (err) {
        judged = { violations: [`judging failed: ${err.stack}`], calls: 0, reinvoked: 0, unknownAttempts: 0 };
      }
      results.push({ i, plan, trial, judged });
      const runId = readLedger(dir)?.runs[0]?.id;
      // Checkouts outside the pool exist only where a trial needed one: on a machine (or a
      // suite's own TMPDIR) where none was ever made, the directory is not there.
      const outside = join(tmpdir(), 'revloop-worktrees');
      if (runId && existsSync(outside)) {
        for (const e of readdirSync(outside, { withFileTypes: true })) {
          if (e.name.includes(runId)) rmSync(join(outside, e.name), { recursive: true, force: true });
        }
      }
      if (judged.violations.length === 0 && !o.keep) {
        rmSync(dir, { recursive: true, force: true });
        rmSync(trial.log, { force: true });
      }
      if (!o.json && judged.violations.length > 0)
        console.error(`trial ${i} (${dir}): ${judged.violations.join('\n  ')}`);
      if (results.length % 25 === 0) {
        const bad = results.filter((x) => x.judged.violations.length > 0).length;
        const min = Math.round((Date.now() - started) / 60_000);
        console.error(`kill harness: ${results.length}/${trials} trials done, ${bad} violating, ${min} min`);
      }
    }
  };
  await Promise.all(Array.from({ length: Number(o.concurrency) }, lane));

  const summary = summarize(results, { runMs, baseRounds, ms: Date.now() - started, passes });
  if (!o.keep && summary.violations === 0) rmSync(work, { recursive: true, force: true });
  summary.workDir = work;
  if (o.json) console.log(JSON.stringify(summary, null, 2));
  else printSummary(summary);
  const enough = summary.fewestBoundaryHits.hits >= Number(o['min-boundary-hits']);
  if (!enough)
    console.error(
      `kill harness: boundary ${summary.fewestBoundaryHits.boundary} killed ${summary.fewestBoundaryHits.hits} times, fewer than --min-boundary-hits ${o['min-boundary-hits']}`,
    );
  process.exit(summary.violations === 0 && enough ? 0 : 1);
}

function summarize(results, meta) {
  const killsAt = {};
  let kills = 0;
  let missed = 0;
  const outcomes = {};
  const commands = { review: 0, resume: 0 };
  let takeoverMaxMs = 0;
  let reinvoked = 0;
  let unknownAttempts = 0;
  let calls = 0;
  const violating = [];
  for (const r of results) {
    for (const k of r.trial.kills) {
      if (k.missed) {
        missed++;
        continue;
      }
      kills++;
      const key = `${k.planned === 'boundary' ? '' : `${k.planned}@`}${k.site}`;
      killsAt[key] = (killsAt[key] ?? 0) + 1;
    }
    for (const a of r.trial.attempts.filter((x) => x.after)) {
      commands[a.command]++;
      takeoverMaxMs = Math.max(takeoverMaxMs, a.ms);
    }
    const end = r.trial.final
      ? `${r.trial.final.status}/${r.trial.final.outcome ?? r.trial.final.reason}`
      : 'none';
    outcomes[end] = (outcomes[end] ?? 0) + 1;
    reinvoked += r.judged.reinvoked;
    unknownAttempts += r.judged.unknownAttempts;
    calls += r.judged.calls;
    if (r.judged.violations.length > 0)
      violating.push({ trial: r.i, dir: r.trial.dir, plan: r.plan, violations: r.judged.violations });
  }
  const boundaryCovered = Object.keys(meta.passes).filter((b) => killsAt[b] > 0);
  // Kills that landed at each boundary (a random instant that fell on one is counted apart).
  const fewestBoundaryHits = Object.keys(meta.passes)
    .map((boundary) => ({ boundary, hits: killsAt[boundary] ?? 0 }))
    .reduce((a, b) => (b.hits < a.hits ? b : a));
  return {
    trials: results.length,
    seconds: Math.round(meta.ms / 100) / 10,
    uncrashedRunMs: meta.runMs,
    uncrashedRounds: meta.baseRounds,
    kills,
    plannedKillsThatMissed: missed,
    killsAt: Object.fromEntries(Object.entries(killsAt).sort()),
    boundariesCovered: `${boundaryCovered.length}/${Object.keys(meta.passes).length}`,
    fewestBoundaryHits,
    resumedWith: commands,
    slowestResumeAttemptMs: takeoverMaxMs,
    outcomes,
    callKeys: calls,
    interruptedAttempts: unknownAttempts,
    reinvocations: reinvoked,
    violations: violating.reduce((n, t) => n + t.violations.length, 0),
    violatingTrials: violating,
  };
}

function printSummary(s) {
  console.log(
    `kill harness: ${s.trials} trials in ${s.seconds} s (uncrashed run ${s.uncrashedRunMs} ms, ${s.uncrashedRounds} rounds)`,
  );
  console.log(
    `kills: ${s.kills} (+${s.plannedKillsThatMissed} planned kills landed after the run ended); boundaries covered ${s.boundariesCovered}`,
  );
  for (const [site, n] of Object.entries(s.killsAt)) console.log(`  ${site.padEnd(32)} ${n}`);
  console.log(
    `fewest kills at one boundary: ${s.fewestBoundaryHits.hits} (${s.fewestBoundaryHits.boundary})`,
  );
  console.log(
    `resumed with: review ${s.resumedWith.review}, resume ${s.resumedWith.resume}; slowest resume attempt ${s.slowestResumeAttemptMs} ms`,
  );
  console.log(`outcomes: ${JSON.stringify(s.outcomes)}`);
  console.log(
    `call keys: ${s.callKeys}, interrupted attempts: ${s.interruptedAttempts}, re-invocations: ${s.reinvocations}`,
  );
  console.log(`violations: ${s.violations}`);
  for (const t of s.violatingTrials)
    console.log(`  trial ${t.trial} ${t.dir}\n    ${t.violations.join('\n    ')}`);
}

await main();
