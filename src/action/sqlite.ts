/**
 * `review` and `export` keep their runs in a SQLite ledger, whose driver is a
 * native module the bundle cannot carry: it is installed for the job from the
 * registry with `npm ci`, exactly as this repository's package-lock.json pins
 * it (versions and integrity hashes, the driver and what it depends on), with
 * no install script: better-sqlite3 ships prebuilt binaries in its package, so
 * nothing is compiled. Already there, it is used as it is. `verify` never
 * needs it.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Refusal } from './refusal.js';

const pkgUrl = new URL('../../package.json', import.meta.url);
const lockUrl = new URL('../../package-lock.json', import.meta.url);
const DRIVER = 'better-sqlite3';

interface Locked {
  version: string;
  dependencies?: Record<string, string>;
}

/** The driver's entries of package-lock.json and those of everything it depends on. */
function lockedDriver(): Record<string, Locked> {
  const lock = JSON.parse(readFileSync(lockUrl, 'utf8')) as { packages: Record<string, Locked> };
  const out: Record<string, Locked> = {};
  const want = [DRIVER];
  for (let name = want.pop(); name !== undefined; name = want.pop()) {
    const key = `node_modules/${name}`;
    const entry = lock.packages[key];
    if (!entry) throw new Error(`package-lock.json has no ${key}`);
    out[key] = entry;
    for (const dep of Object.keys(entry.dependencies ?? {})) if (!out[`node_modules/${dep}`]) want.push(dep);
  }
  return out;
}

function installed(dir: string, version: string): boolean {
  const manifest = join(dir, 'node_modules', DRIVER, 'package.json');
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
    createRequire(pkgUrl).resolve(DRIVER);
    return undefined;
  } catch {}
  const packages = lockedDriver();
  const version = packages[`node_modules/${DRIVER}`]?.version ?? '';
  const dir = join(temp, 'revloop-sqlite');
  if (installed(dir, version)) return dir;
  process.stdout.write(`revloop: installing the SQLite driver ${DRIVER}@${version} into ${dir}\n`);
  mkdirSync(dir, { recursive: true });
  const dependencies = { [DRIVER]: version };
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ private: true, dependencies }));
  writeFileSync(
    join(dir, 'package-lock.json'),
    JSON.stringify({ lockfileVersion: 3, requires: true, packages: { '': { dependencies }, ...packages } }),
  );
  const npm = spawnSync('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund'], {
    cwd: dir,
    env,
    encoding: 'utf8',
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  if (npm.status === 0 && installed(dir, version)) return dir;
  const why = npm.error
    ? `npm could not start: ${npm.error.message}`
    : `npm exited ${npm.status ?? npm.signal}: ${lastLine(npm.stderr)}`;
  throw new Refusal(
    'usage',
    2,
    `revloop review needs the SQLite driver ${DRIVER}@${version} for its ledger and could not install it (${why}); install it with npm install --prefix DIR ${DRIVER}@${version} and set REVLOOP_SQLITE_DRIVER=DIR`,
  );
}

const lastLine = (s: string | null): string =>
  (s ?? '')
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .pop() ?? 'no message';
