// Controller cost of the loop as a regression signal (bench/lib/review-loop.mjs:
// 5 rounds, three reviewers, a fixer, SQLite) with reviewers that each take
// 200 ms: wall time of `review` (admission to signed record) against the sum
// of reviewer time; target: overhead <= 10 %. Not a target to optimise
// toward (realistic-loop.bench.mjs, with 2 s calls, is the overhead figure);
// a jump here means something got slower. Prints where the best run's
// controller time went, and the controller's cost per round with instant
// reviewers (ms per round).
import { loopOnce, median, pct, ROUNDS } from './lib/review-loop.mjs';

const DELAY_MS = 200;

export default async function () {
  await loopOnce(0); // warm-up: module loading, first git spawns
  const instant = [];
  for (let i = 0; i < 3; i++) instant.push((await loopOnce(0)).ms);
  const slow = [];
  for (let i = 0; i < 5; i++) slow.push(await loopOnce(DELAY_MS));
  const nominalMs = ROUNDS * DELAY_MS; // one 200 ms wait per round: the reviewers overlap
  // The run with the least controller time (wall minus reviewer time) of the five.
  const best = slow.reduce((a, b) => (b.ms - b.reviewerMs < a.ms - a.reviewerMs ? b : a));
  const overhead = (best.ms - best.reviewerMs) / best.reviewerMs;
  const perRound = median(instant) / ROUNDS;
  return {
    name: 'loop controller overhead, regression signal (5 rounds, 3 reviewers x 200 ms, fixer, SQLite)',
    target: 'wall time <= 110 % of reviewer time',
    pass: overhead <= 0.1,
    lines: [
      `reviewer time ${best.reviewerMs.toFixed(0)} ms (${nominalMs} ms nominal); loop wall time ${best.ms.toFixed(0)} ms (best of ${slow.length}): overhead ${pct(overhead)} (${pct((best.ms - nominalMs) / nominalMs)} against nominal)`,
      `all runs: ${slow.map((r) => `${r.ms.toFixed(0)}/${r.reviewerMs.toFixed(0)} ms`).join(', ')} (wall/reviewer)`,
      `where the best run's controller time went (ms): ${Object.entries(best.windows)
        .map(([k, v]) => `${k} ${v.toFixed(1)}`)
        .join(', ')}`,
      `instant reviewers: ${perRound.toFixed(1)} ms of controller work per round (median of ${instant.length} loops of ${ROUNDS} rounds: ${instant.map((x) => x.toFixed(0)).join(', ')} ms)`,
    ],
  };
}
