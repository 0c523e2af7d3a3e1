#!/usr/bin/env node
// One timed loop in a fresh process, so a bench can compare settings that a
// process reads once (environment variables) within one run. Arguments:
// reviewer ms, fixer ms. Prints the loopOnce result as one JSON line.
import { loopOnce } from './review-loop.mjs';

const [reviewerMs, fixerMs] = process.argv.slice(2).map(Number);
await loopOnce(0); // warm-up: module loading, first git spawns
const res = await loopOnce(reviewerMs, fixerMs);
const { nativeSpawn } = await import(new URL('../../dist/io/spawn.js', import.meta.url).href);
console.log(JSON.stringify({ ...res, native: nativeSpawn() !== null }));
