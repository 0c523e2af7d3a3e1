// The controller's overhead figure: the loop of bench/lib/review-loop.mjs
// (5 rounds, three reviewers, a fixer, SQLite) with agent calls as long as
// real ones (2 s each). Controller time = wall time - the agents' own time
// (every reviewer and fixer call as it actually took); target: the best of
// the loops <= 1 % of wall (the best, as in loop-overhead: on a loaded
// machine the others measure the load). Each loop runs in its own process
// (bench/lib/loop-child.mjs). MODES can hold several settings, run in
// interleaved sets so that load falls on all alike: this is how the
// posix_spawn addon was measured against child_process before it went
// (docs/architecture.md, "Reviewer port contract and the overhead figure").
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { median, pct, REVIEWERS, ROUNDS } from './lib/review-loop.mjs';

const CALL_MS = 2000;
// Sets of loops (one per mode); REVLOOP_BENCH_PAIRS raises it where the machine is noisy.
const PAIRS = Number(process.env.REVLOOP_BENCH_PAIRS ?? 3);
const MODES = [{ name: 'child_process', env: {} }];
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
      wallMs: median(rs.map((r) => r.ms)),
      controllerMs: median(controller),
      bestControllerMs: Math.min(...controller),
      overhead: median(rs.map((r) => (r.ms - r.reviewerMs - r.fixerMs) / r.ms)),
      bestOverhead: Math.min(...rs.map((r) => (r.ms - r.reviewerMs - r.fixerMs) / r.ms)),
      all: rs,
    };
  });
  const worst = Math.max(...summary.map((s) => s.bestOverhead));
  const lines = [
    `${ROUNDS} rounds x (${REVIEWERS.length} reviewers side by side + fixer) x ${CALL_MS} ms calls: ${ROUNDS * 2 * CALL_MS} ms of agent time nominal; median of ${PAIRS} loops per setting`,
    ...summary.map(
      (s) =>
        `${s.mode}: wall ${s.wallMs.toFixed(0)} ms, controller ${s.controllerMs.toFixed(0)} ms = ${pct(s.overhead)} of wall, best ${s.bestControllerMs.toFixed(0)} ms = ${pct(s.bestOverhead)} (runs: ${s.all.map((r) => (r.ms - r.reviewerMs - r.fixerMs).toFixed(0)).join(', ')} ms)`,
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
  return {
    name: `loop controller overhead, realistic (${ROUNDS} rounds, ${REVIEWERS.length} reviewers + fixer x 2 s, SQLite)`,
    target: 'controller time <= 1 % of wall time (best loop)',
    pass: worst <= 0.01,
    lines,
  };
}
