// Loop Lab: 300 trials of the default model (baseline + all upgrades), median
// of 25 timed repetitions after a warm-up. The issue sets an absolute target
// (median <= 20 ms); the ratio to a trivial loop of raw PRNG draws is printed
// for context, since these machines are noisy.
import { performance } from 'node:perf_hooks';
import { mulberry32, resolveParams, simulate } from '../dist/sim/index.js';

const REPS = 25;
const TARGET_MS = 20;

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

export default async function () {
  const params = resolveParams(null, {});
  const sim = time(() => simulate(params));
  const base = time(trivialLoop);
  const pass = sim.median <= TARGET_MS;
  return {
    name: 'sim: 300 trials of the default model',
    target: `median <= ${TARGET_MS} ms (absolute, by the issue)`,
    pass,
    lines: [
      `simulate(default, 300 trials): median ${sim.median.toFixed(2)} ms (min ${sim.min.toFixed(2)}, max ${sim.max.toFixed(2)}) over ${REPS} runs`,
      `trivial loop of ${300 * 2 * 5 * 65} PRNG draws: median ${base.median.toFixed(2)} ms`,
      `ratio to the trivial loop: ${(sim.median / base.median).toFixed(1)}x`,
    ],
  };
}
