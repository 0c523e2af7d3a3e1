/**
 * Runs the real CLI binary (dist/cli/main.js) for Loop Lab's CLI tests
 * (built by the suite's global set-up, test/helpers/build.ts).
 */
import { spawnSync } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const MAIN = join(ROOT, 'dist/cli/main.js');

export { ensureBuilt } from '../helpers/build.js';

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
