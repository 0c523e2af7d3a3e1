/**
 * The compiled CLI (dist/) that the suite's CLI and child-process tests run.
 * It is built in one place, before any test file starts: the suite's global
 * set-up (test/global-build.ts) rebuilds it when a source is newer. A test
 * file never rebuilds it while others run: a build rewrites dist/ under the
 * CLIs other files have started, which then load half-written modules (seen as
 * exit 70 in the kill harness on a busy machine, when four helpers each had
 * their own staleness rule).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const CLI = join(ROOT, 'dist/cli/main.js');

/** What the build reads: a file here newer than the CLI makes dist/ stale. */
const SOURCES = ['src', 'scripts', 'tsconfig.json', 'tsconfig.build.json'];

function newest(p: string): number {
  if (!existsSync(p)) return 0;
  const s = statSync(p);
  if (!s.isDirectory()) return s.mtimeMs;
  return readdirSync(p).reduce((m, e) => Math.max(m, newest(join(p, e))), 0);
}

export const isStale = (): boolean =>
  !existsSync(CLI) || statSync(CLI).mtimeMs < Math.max(...SOURCES.map((s) => newest(join(ROOT, s))));

/** `npm run build` when dist/ is stale, one builder at a time across processes. */
export function buildIfStale(): void {
  if (!isStale()) return;
  const lock = join(ROOT, '.build-lock-test');
  for (let i = 0; ; i++) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      if (i > 3000) throw new Error(`build lock ${lock} held too long (remove it if no build runs)`);
      execFileSync('sleep', ['0.2']);
    }
  }
  try {
    // Another engineer's half-done file may fail type-checking; tsc still emits, so a failed build with a CLI present is used.
    if (isStale()) {
      try {
        execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'ignore' });
      } catch (err) {
        if (!existsSync(CLI)) throw err;
      }
    }
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/**
 * For a test file that runs the CLI: dist/ is there (the global set-up built it).
 * Builds only when it is missing altogether, never because it looks stale mid-suite.
 */
export function ensureBuilt(): void {
  if (!existsSync(CLI)) buildIfStale();
}
