#!/usr/bin/env node
// One timed loop in a fresh process, so a bench can compare settings that a
// process reads once (environment variables) within one run. Arguments:
// reviewer ms, fixer ms. Prints the loopOnce result as one JSON line, with
// what one git process start costs through each starter in this process
// (its heap as the loop left it), alternating, so load falls on both alike.
import { loopOnce, median } from './review-loop.mjs';

const dist = (p) => new URL(`../../dist/${p}`, import.meta.url).href;
const [reviewerMs, fixerMs] = process.argv.slice(2).map(Number);
await loopOnce(0); // warm-up: module loading, first git spawns
const res = await loopOnce(reviewerMs, fixerMs);
const { nativeSpawn, spawnProcess } = await import(dist('io/spawn.js'));

function startGit(via) {
  const t0 = performance.now();
  const child = spawnProcess('git', ['--version'], { env: process.env, stdin: 'ignore', via });
  child.stdout.resume();
  child.stderr.resume();
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', () => resolve(performance.now() - t0));
  });
}

const spawnMs = {};
if (nativeSpawn() !== null) {
  const times = { native: [], node: [] };
  for (let i = 0; i < 100; i++)
    for (const via of i % 2 === 0 ? ['native', 'node'] : ['node', 'native'])
      times[via].push(await startGit(via));
  spawnMs.native = median(times.native);
  spawnMs.node = median(times.node);
}
console.log(JSON.stringify({ ...res, native: nativeSpawn() !== null, spawnMs }));
