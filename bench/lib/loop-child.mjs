#!/usr/bin/env node
// One timed loop in a fresh process, so that each loop starts with the heap
// and module state a `revloop review` has, and a bench can compare settings
// a process reads once (environment variables) within one run. Arguments:
// reviewer ms, fixer ms. Prints the loopOnce result as one JSON line.
import { loopOnce } from './review-loop.mjs';

const [reviewerMs, fixerMs] = process.argv.slice(2).map(Number);
await loopOnce(0); // warm-up: module loading, first git spawns
console.log(JSON.stringify(await loopOnce(reviewerMs, fixerMs)));
