/**
 * `review` and `export` keep their runs in a SQLite ledger, whose driver is a
 * native module the bundle cannot carry: it is installed for the job from the
 * registry, at the version package.json pins (better-sqlite3 ships prebuilt
 * binaries in its package, so nothing is compiled), unless it is already
 * there. `verify` never needs it.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Refusal } from './refusal.js';

const pkgUrl = new URL('../../package.json', import.meta.url);

function pinnedVersion(): string {
  const pkg = JSON.parse(readFileSync(pkgUrl, 'utf8')) as { dependencies?: Record<string, string> };
  const v = pkg.dependencies?.['better-sqlite3'];
  if (!v) throw new Error('package.json names no better-sqlite3 version');
  return v;
}

function installed(dir: string, version: string): boolean {
  const manifest = join(dir, 'node_modules', 'better-sqlite3', 'package.json');
  if (!existsSync(manifest)) return false;
  return (JSON.parse(readFileSync(manifest, 'utf8')) as { version?: string }).version === version;
}

/**
 * The folder to give the CLI as REVLOOP_SQLITE_DRIVER, or undefined when Node
 * already finds the driver from the bundle (a clone where `npm ci` ran).
 */
export function ensureSqliteDriver(env: NodeJS.ProcessEnv, temp: string): string | undefined {
  if (env.REVLOOP_SQLITE_DRIVER) return env.REVLOOP_SQLITE_DRIVER;
  try {
    createRequire(pkgUrl).resolve('better-sqlite3');
    return undefined;
  } catch {}
  const version = pinnedVersion();
  const dir = join(temp, 'revloop-sqlite');
  if (installed(dir, version)) return dir;
  process.stdout.write(`revloop: installing the SQLite driver better-sqlite3@${version} into ${dir}\n`);
  const npm = spawnSync(
    'npm',
    [
      'install',
      '--prefix',
      dir,
      '--no-save',
      '--no-package-lock',
      '--no-audit',
      '--no-fund',
      `better-sqlite3@${version}`,
    ],
    { env, encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'] },
  );
  if (npm.status === 0 && installed(dir, version)) return dir;
  const why = npm.error
    ? `npm could not start: ${npm.error.message}`
    : `npm exited ${npm.status ?? npm.signal}: ${lastLine(npm.stderr)}`;
  throw new Refusal(
    'usage',
    2,
    `revloop review needs the SQLite driver better-sqlite3@${version} for its ledger and could not install it (${why}); install it with npm install --prefix DIR better-sqlite3@${version} and set REVLOOP_SQLITE_DRIVER=DIR`,
  );
}

const lastLine = (s: string | null): string =>
  (s ?? '')
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .pop() ?? 'no message';
