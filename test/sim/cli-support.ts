/**
 * Runs the real CLI binary (dist/cli/main.js) for Loop Lab's CLI tests,
 * building dist first when it is missing or older than our sources.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const MAIN = join(ROOT, 'dist/cli/main.js');

function newestMtime(dir: string): number {
  let newest = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    newest = Math.max(newest, e.isDirectory() ? newestMtime(p) : statSync(p).mtimeMs);
  }
  return newest;
}

/** Compiles src/ when our compiled files are missing or stale; a type error elsewhere does not stop tsc emitting. */
export function ensureBuilt(): void {
  const outputs = [
    'cli/main.js',
    'cli/commands/sim.js',
    'cli/commands/analyze.js',
    'sim/index.js',
    'analyze/index.js',
  ];
  const oldest = Math.min(
    ...outputs.map((o) => (existsSync(join(ROOT, 'dist', o)) ? statSync(join(ROOT, 'dist', o)).mtimeMs : 0)),
  );
  const sources = Math.max(
    ...['src/sim', 'src/analyze', 'src/report', 'src/cli'].map((d) => newestMtime(join(ROOT, d))),
  );
  if (oldest > sources) return;
  spawnSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], {
    cwd: ROOT,
    stdio: 'ignore',
  });
  for (const o of outputs) {
    if (!existsSync(join(ROOT, 'dist', o))) throw new Error(`build did not produce dist/${o}`);
  }
}

export interface CliRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `revloop ...args` in `cwd`, optionally feeding stdin. */
export function revloop(args: string[], opts: { cwd?: string; input?: string } = {}): CliRun {
  const r = spawnSync(process.execPath, [MAIN, ...args], {
    cwd: opts.cwd ?? ROOT,
    input: opts.input ?? '',
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}
