#!/usr/bin/env node
/**
 * Builds and runs Spin's verifier on models/lease-protocol.pml: the safety
 * assertions exhaustively, the liveness claim `ends` under weak fairness, and
 * each mutant, which must fail (else the model proves nothing). pan is built
 * in a temporary directory, never in the repository.
 *
 *   node scripts/model-check.mjs [--faults N] [--admits N] [--json]
 *
 * Exit 0: every check gave the expected verdict; 1: one did not; 2: bad
 * arguments; 3: spin or gcc is missing.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const MODEL = join(dirname(fileURLToPath(import.meta.url)), '..', 'models', 'lease-protocol.pml');

/** Each check: its spin defines, whether it needs the never claim, and the verdict it must give. */
export const CHECKS = [
  { name: 'safety', defines: [], liveness: false, expect: 'pass' },
  { name: 'liveness', defines: [], liveness: true, expect: 'pass' },
  { name: 'mutant: no fencing check', defines: ['NO_FENCE'], liveness: false, expect: 'fail' },
  { name: 'mutant: no unique admission key', defines: ['NO_UNIQUE'], liveness: false, expect: 'fail' },
  { name: 'mutant: token read without FOR UPDATE', defines: ['NO_ROWLOCK'], liveness: false, expect: 'fail' },
  { name: 'mutant: expired leases never taken over', defines: ['NO_EXPIRY'], liveness: true, expect: 'fail' },
];

/** Which of the tools the check needs is missing, or null. */
export function missingTool() {
  for (const tool of ['spin', 'gcc']) {
    const r = spawnSync(tool, [tool === 'spin' ? '-V' : '--version'], { stdio: 'ignore' });
    if (r.error || r.status !== 0) return tool;
  }
  return null;
}

const num = (text, re) => {
  const m = re.exec(text);
  return m ? Number(m[1]) : null;
};

/** Runs one check; returns its figures and the first error pan reported. */
export function runCheck(check, bounds = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'revloop-spin-'));
  try {
    copyFileSync(MODEL, join(dir, 'model.pml'));
    const defs = [...check.defines, `MAXFAULTS=${bounds.faults ?? 1}`, `MAXADMIT=${bounds.admits ?? 2}`];
    const run = (cmd, args) => execFileSync(cmd, args, { cwd: dir, encoding: 'utf8', stdio: 'pipe' });
    run('spin', [...defs.map((d) => `-D${d}`), '-a', 'model.pml']);
    // COLLAPSE compresses each state losslessly (the search stays exhaustive); SAFETY drops the
    // cycle machinery the assertions do not need; NOCLAIM leaves the LTL claim out of those runs.
    const cflags = check.liveness ? ['-DCOLLAPSE'] : ['-DCOLLAPSE', '-DSAFETY', '-DNOCLAIM'];
    // A mutant fails within a few dozen states: compiling it unoptimised saves more than it costs.
    const opt = check.expect === 'fail' ? '-O0' : '-O2';
    run('gcc', [opt, '-w', ...cflags, '-o', 'pan', 'pan.c']);
    // -a: acceptance cycles of the claim; -f: weak fairness (every process that stays able to move
    // moves: time passes, a stalled process comes back); -m: depth far beyond the model's; -n: no
    // unreached-code listing. -c1 stops at the first error.
    const flags = check.liveness ? ['-a', '-f'] : [];
    const started = Date.now();
    const r = spawnSync('./pan', [...flags, '-m1000000', '-n', '-c1'], {
      cwd: dir,
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
    const out = `${r.stdout}${r.stderr}`;
    const errors = num(out, /errors: (\d+)/);
    if (errors === null) throw new Error(`pan gave no verdict for ${check.name}:\n${out.slice(-2000)}`);
    const firstError =
      /^pan:\d+: (.*)$/m.exec(out)?.[1] ?? (/acceptance cycle/.test(out) ? 'acceptance cycle' : null);
    return {
      name: check.name,
      expect: check.expect,
      verdict: errors === 0 ? 'pass' : 'fail',
      ok: (errors === 0 ? 'pass' : 'fail') === check.expect,
      error: firstError,
      states: num(out, /([\d.e+]+) states, stored/),
      memoryMb: num(out, /([\d.]+)\s+total actual memory usage/),
      depth: num(out, /depth reached (\d+)/),
      exhaustive: !/max search depth too small/.test(out),
      seconds: (Date.now() - started) / 1000,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function parseArgs(argv) {
  const out = { faults: 1, admits: 2, json: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--json') out.json = true;
    else if (a === '--faults' || a === '--admits') {
      const v = argv[++i];
      if (v === undefined || !/^\d+$/.test(v))
        throw new Error(`${a} needs a whole number, got ${v ?? 'nothing'}`);
      const n = Number(v);
      if (a === '--admits' && (n < 1 || n > 3))
        throw new Error(`--admits must be 1 to 3 (the model has 3 run rows), got ${n}`);
      out[a.slice(2)] = n;
    } else throw new Error(`unknown argument ${a} (expected --faults N, --admits N, --json)`);
  }
  return out;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  let args;
  try {
    args = parseArgs(process.argv.slice(2));
  } catch (err) {
    console.error(`model-check: ${err.message}`);
    process.exit(2);
  }
  const missing = missingTool();
  if (missing) {
    console.error(`model-check: ${missing} is not installed (Debian: apt-get install spin gcc)`);
    process.exit(3);
  }
  const results = [];
  for (const check of CHECKS) {
    const r = runCheck(check, args);
    results.push(r);
    if (!args.json)
      console.log(
        `${r.ok ? 'ok  ' : 'FAIL'} ${r.name}: ${r.verdict} (expected ${r.expect})${r.error ? ` - ${r.error}` : ''}; ` +
          `${r.states} states, ${r.memoryMb} MB, depth ${r.depth}, ${r.seconds.toFixed(1)} s`,
      );
  }
  if (args.json) console.log(JSON.stringify({ bounds: args, results }, null, 2));
  process.exit(results.every((r) => r.ok && r.exhaustive) ? 0 : 1);
}
