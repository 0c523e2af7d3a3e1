// Loop Lab: 300 trials of the faithful model (uncapped and capped baseline +
// all upgrades on the live stop rule), median of 25 timed repetitions after a
// warm-up, and one policy sweep (`sim --sweep`: 50 policy points and U5's 9
// points of n and block). Issue 19 sets
// absolute targets (median <= 20 ms; a sweep under 5 s); the ratio to a
// trivial loop of raw PRNG draws is printed for context, since these machines
// are noisy. `node bench/sim.bench.mjs` prints the figures on its own.
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { mulberry32, resolveParams, simulate, sweep } from '../dist/sim/index.js';

const REPS = 25;
const TARGET_MS = 20;
const SWEEP_TARGET_MS = 5000;

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

function time(fn) {
  for (let i = 0; i < 5; i++) fn();
  const ts = [];
  for (let i = 0; i < REPS; i++) {
    const t = performance.now();
    fn();
    ts.push(performance.now() - t);
  }
  return { median: median(ts), min: Math.min(...ts), max: Math.max(...ts) };
}

// About as many uniform draws as the model makes (300 trials x 2 sides x ~5 rounds x ~65 draws).
function trivialLoop() {
  const u = mulberry32(1);
  let acc = 0;
  for (let i = 0; i < 300 * 2 * 5 * 65; i++) acc += u();
  return acc;
}

export default async function run() {
  const params = resolveParams(null, {});
  const sim = time(() => simulate(params));
  const base = time(trivialLoop);
  const hostile = resolveParams('hostile', {});
  sweep(resolveParams('hostile', { trials: 20 })); // warm-up
  const t = performance.now();
  const swept = sweep(hostile);
  const sweepMs = performance.now() - t;
  const pass = sim.median <= TARGET_MS && sweepMs < SWEEP_TARGET_MS;
  return {
    name: 'sim: 300 trials of the faithful model; a 50-point sweep',
    target: `median <= ${TARGET_MS} ms; sweep < ${SWEEP_TARGET_MS / 1000} s (absolute, by issue 19)`,
    pass,
    lines: [
      `simulate(default, 300 trials): median ${sim.median.toFixed(2)} ms (min ${sim.min.toFixed(2)}, max ${sim.max.toFixed(2)}) over ${REPS} runs`,
      `trivial loop of ${300 * 2 * 5 * 65} PRNG draws: median ${base.median.toFixed(2)} ms`,
      `ratio to the trivial loop: ${(sim.median / base.median).toFixed(1)}x`,
      `sweep(hostile, 300 trials, ${swept.points.length} + ${swept.samples.points.length} points): ${sweepMs.toFixed(0)} ms`,
    ],
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const res = await run();
  console.log(`${res.name}  [${res.pass ? 'PASS' : 'MISS'}]  target: ${res.target}`);
  for (const line of res.lines) console.log(`   ${line}`);
}
