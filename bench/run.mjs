#!/usr/bin/env node
// Runs every bench/*.bench.mjs in name order. Each exports a default async
// function returning { name, lines: string[], pass: boolean, target: string }.
// Targets are ratios against a baseline measured in the same run, never
// absolute times: these machines are noisy.
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const only = process.argv.slice(2);
const files = readdirSync(here)
  .filter((f) => f.endsWith('.bench.mjs'))
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
  .sort();

let failed = 0;
for (const f of files) {
  const mod = await import(join(here, f));
  const started = Date.now();
  const res = await mod.default();
  const mark = res.pass ? 'PASS' : 'MISS';
  if (!res.pass) failed++;
  console.log(
    `\n## ${res.name}  [${mark}]  target: ${res.target}  (${((Date.now() - started) / 1000).toFixed(1)} s)`,
  );
  for (const line of res.lines) console.log(`   ${line}`);
}
console.log(`\n${files.length - failed} of ${files.length} benchmarks met their targets`);
