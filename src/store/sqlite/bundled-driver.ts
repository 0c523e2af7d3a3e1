/**
 * What `better-sqlite3` is inside the bundled CLI (scripts/bundle.mjs): the
 * native driver cannot be bundled, so it is loaded when a ledger is first
 * opened, never when the bundle starts, and `verify` runs with no driver at
 * all. It is looked for in `REVLOOP_SQLITE_DRIVER` (a folder holding
 * `node_modules/better-sqlite3`, where the Action installs it), else as Node
 * resolves it from the bundle's folder. Missing, it is one line and exit 5.
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { RevloopError } from '../../core/errors.js';

type Driver = typeof BetterSqlite3;
let driver: Driver | undefined;

function load(): Driver {
  const dir = process.env.REVLOOP_SQLITE_DRIVER;
  const from = dir ? join(dir, 'node_modules', 'x.js') : import.meta.url;
  try {
    return createRequire(from)('better-sqlite3') as Driver;
  } catch (err) {
    if ((err as { code?: unknown }).code !== 'MODULE_NOT_FOUND') throw err;
    throw new RevloopError(
      'store_unavailable',
      `the SQLite ledger needs the driver better-sqlite3, which is not installed ${dir ? `under REVLOOP_SQLITE_DRIVER=${dir}` : 'beside this bundle'}: npm install --prefix DIR better-sqlite3 and set REVLOOP_SQLITE_DRIVER=DIR, or name a PostgreSQL ledger with --store`,
    );
  }
}

/** Called with `new`, as better-sqlite3's own constructor is; returns the driver's database. */
function Database(...args: ConstructorParameters<Driver>): BetterSqlite3.Database {
  driver ??= load();
  return new driver(...args);
}

export default Database as unknown as Driver;
