#!/usr/bin/env node
// Deterministic simulation of the real driver (issue 20, point 2):
//   npm run test:dst -- --schedules N --seed S
// runs schedules S, S+1, … S+N-1 (test/dst/), each the real loop over simulated ports under a
// seeded fault schedule, and judges invariants 1–14 and replay after each.
// Exit codes: 0 every schedule held, 1 a schedule broke an invariant (printed with its seed,
// step and invariant), 2 bad arguments.
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const USAGE = 'usage: npm run test:dst -- [--schedules N] [--seed S]';
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

function fail(message) {
  process.stderr.write(`test:dst: ${message}\n${USAGE}\n`);
  process.exit(2);
}

function parseArgs(argv) {
  const out = { schedules: 2000, seed: 1 };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    if (flag === '--help' || flag === '-h') {
      process.stdout.write(`${USAGE}\n`);
      process.exit(0);
    }
    const [name, inline] = flag.split('=', 2);
    if (name !== '--schedules' && name !== '--seed') fail(`unknown argument "${flag}"`);
    const value = inline ?? argv[++i];
    if (value === undefined) fail(`${name} needs a value`);
    if (!/^\d+$/.test(value)) fail(`${name} must be a non-negative whole number, got "${value}"`);
    const n = Number(value);
    if (name === '--schedules') {
      if (n < 1 || n > 1e9) fail(`--schedules must be between 1 and 1000000000, got ${value}`);
      out.schedules = n;
    } else {
      if (n > 0xffffffff) fail(`--seed must fit in 32 bits (at most 4294967295), got ${value}`);
      out.seed = n;
    }
  }
  return out;
}

const args = parseArgs(process.argv.slice(2));
// Checkouts, records and prompts on tmpfs when there is one: the driver fsyncs them.
const scratch = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'revloop-dst-tmp-'));
process.env.TMPDIR = scratch;

const { createServer, createServerModuleRunner } = await import('vite');
const server = await createServer({
  configFile: false,
  root: ROOT,
  logLevel: 'error',
  appType: 'custom',
  server: { middlewareMode: true, hmr: false, ws: false },
  optimizeDeps: { noDiscovery: true, include: [] },
});
const runner = createServerModuleRunner(server.environments.ssr, { hmr: false });
const { runSchedules, describeFailure } = await runner.import(join(ROOT, 'test/dst/runner.ts'));

const started = Date.now();
let lastReport = started;
const summary = await runSchedules({
  seed: args.seed,
  schedules: args.schedules,
  scratch,
  maxFailures: Number(process.env.DST_MAX_FAILURES ?? 5),
  // One line per schedule, for comparing a schedule alone with the same one inside a long run.
  onSchedule: process.env.DST_PRINT_DIGESTS
    ? (r) => process.stdout.write(`digest ${r.seed} ${r.digest}\n`)
    : undefined,
  onFailure: (r) => process.stderr.write(`test:dst: failing: ${describeFailure(r, 0).split('\n')[0]}\n`),
  onProgress: (done, failed) => {
    if (Date.now() - lastReport < 30_000) return;
    lastReport = Date.now();
    process.stderr.write(
      `test:dst: ${done}/${args.schedules} schedules, ${failed} failing, ${Math.round((Date.now() - started) / 1000)} s\n`,
    );
  },
});
const seconds = ((Date.now() - started) / 1000).toFixed(1);
const ends = Object.entries(summary.ends)
  .sort((a, b) => b[1] - a[1])
  .map(([k, n]) => `${k} ${n}`)
  .join(', ');
process.stdout.write(
  `test:dst: ${summary.schedules} schedules from seed ${args.seed} in ${seconds} s: ${summary.failed.length} failing; ${summary.steps} steps, ${summary.crashes} crashes injected\n  ends: ${ends}\n`,
);
for (const [id, n] of Object.entries(summary.known))
  process.stdout.write(`  known gap ${id} (test/dst/known-gaps.ts): ${n} schedules\n`);
// Run alone, a schedule is printed whole.
const tail = args.schedules === 1 ? Number.POSITIVE_INFINITY : 40;
for (const r of summary.failed) process.stdout.write(`${describeFailure(r, tail)}\n`);
await runner.close();
await server.close();
process.exit(summary.failed.length > 0 ? 1 : 0);
