/**
 * The compiled CLI the crash tests drive as a child process (npm test builds
 * dist first; a missing build is made once here).
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '../..');
export const MAIN_JS = join(ROOT, 'dist/cli/main.js');

export function ensureBuilt(): void {
  if (existsSync(MAIN_JS)) return;
  execFileSync(
    process.execPath,
    [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'],
    {
      cwd: ROOT,
      stdio: 'ignore',
    },
  );
}
