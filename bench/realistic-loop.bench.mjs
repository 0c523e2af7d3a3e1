// The controller's overhead figure: the loop of bench/lib/review-loop.mjs
// (5 rounds, three reviewers, a fixer, SQLite) with agent calls as long as
// real ones (2 s each). Controller time = wall time - the agents' own time
// (every reviewer and fixer call as it actually took); target: <= 1 % of wall.
// Each loop runs in its own process (bench/lib/loop-child.mjs) so that the
// process starters can be compared in one run: the posix_spawn addon
// (native/spawn.c) against child_process (REVLOOP_NATIVE_SPAWN=0), in
// interleaved pairs so that machine load falls on both alike.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { median, pct, REVIEWERS, ROUNDS } from './lib/review-loop.mjs';

const CALL_MS = 2000;
// Pairs of loops (one per mode); REVLOOP_BENCH_PAIRS raises it where the machine is noisy.
const PAIRS = Number(process.env.REVLOOP_BENCH_PAIRS ?? 3);
const MODES = [
  { name: 'posix_spawn addon', env: {} },
  { name: 'child_process', env: { REVLOOP_NATIVE_SPAWN: '0' } },
];
const child = fileURLToPath(new URL('./lib/loop-child.mjs', import.meta.url));

function runChild(env) {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [child, String(CALL_MS), String(CALL_MS)], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    p.stdout.on('data', (d) => {
      out += d;
    });
    p.on('error', reject);
    p.on('close', (code) => {
      if (code !== 0) reject(new Error(`loop-child exited ${code}`));
      else resolve(JSON.parse(out.trim().split('\n').at(-1)));
    });
  });
}

export default async function () {
  const runs = new Map(MODES.map((m) => [m.name, []]));
  for (let i = 0; i < PAIRS; i++) {
    // Alternate which mode goes first, so a trend in machine load favours neither.
    const order = i % 2 === 0 ? MODES : [...MODES].reverse();
    for (const m of order) runs.get(m.name).push(await runChild(m.env));
  }
  const summary = MODES.map((m) => {
    const rs = runs.get(m.name);
    const controller = rs.map((r) => r.ms - r.reviewerMs - r.fixerMs);
    return {
      mode: m.name,
      native: rs.every((r) => r.native),
      wallMs: median(rs.map((r) => r.ms)),
      controllerMs: median(controller),
      bestControllerMs: Math.min(...controller),
      overhead: median(rs.map((r) => (r.ms - r.reviewerMs - r.fixerMs) / r.ms)),
      all: rs,
    };
  });
  const worst = Math.max(...summary.map((s) => s.overhead));
  const lines = [
    `${ROUNDS} rounds x (${REVIEWERS.length} reviewers + fixer) x ${CALL_MS} ms calls: ${ROUNDS * (REVIEWERS.length + 1) * CALL_MS} ms of agent time nominal; median of ${PAIRS} loops per mode`,
    ...summary.map(
      (s) =>
        `${s.mode}${s.native ? '' : ' (not native)'}: wall ${s.wallMs.toFixed(0)} ms, controller ${s.controllerMs.toFixed(0)} ms = ${pct(s.overhead)} of wall, best ${s.bestControllerMs.toFixed(0)} ms (runs: ${s.all.map((r) => (r.ms - r.reviewerMs - r.fixerMs).toFixed(0)).join(', ')} ms)`,
    ),
  ];
  if (summary.length === 2) {
    const [a, b] = summary;
    const saved = b.controllerMs - a.controllerMs;
    const bestSaved = b.bestControllerMs - a.bestControllerMs;
    lines.push(
      `${a.mode} saves ${saved.toFixed(0)} ms of ${b.wallMs.toFixed(0)} ms wall = ${pct(saved / b.wallMs)} by median controller time, ${bestSaved.toFixed(0)} ms = ${pct(bestSaved / b.wallMs)} by best (${b.mode} - ${a.mode})`,
    );
  }
  // What one git start costs through each starter, timed alternately inside each loop's process.
  const starts = [...runs.values()].flat().filter((r) => r.spawnMs?.native !== undefined);
  if (starts.length > 0)
    lines.push(
      `one git start (git --version, to its close) in a loop's process: posix_spawn ${median(starts.map((r) => r.spawnMs.native)).toFixed(1)} ms, child_process ${median(starts.map((r) => r.spawnMs.node)).toFixed(1)} ms (median over ${starts.length} processes of 100 each)`,
    );
  return {
    name: `loop controller overhead, realistic (${ROUNDS} rounds, ${REVIEWERS.length} reviewers + fixer x 2 s, SQLite)`,
    target: 'controller time <= 1 % of wall time',
    pass: worst <= 0.01,
    lines,
  };
}
