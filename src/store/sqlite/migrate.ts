/**
 * Applies the numbered migrations not yet recorded in schema_migrations, in
 * one IMMEDIATE transaction so that racing processes migrate once. An
 * up-to-date ledger is detected by a read, so opening never needs the write
 * lock (a worker holding it does not stop `status` from opening).
 */
import type Database from 'better-sqlite3';
import { SQLITE_MIGRATIONS } from './migrations/index.js';

const latest = Math.max(...SQLITE_MIGRATIONS.map((m) => m.version));

function applied(db: Database.Database): number {
  const has = db
    .prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'`)
    .get();
  if (!has) return 0;
  const row = db.prepare('SELECT max(version) AS v FROM schema_migrations').get() as { v: number | null };
  return row.v ?? 0;
}

/** Whether the ledger lacks migrations this version needs (a read-only open cannot apply them). */
export const needsMigration = (db: Database.Database): boolean => applied(db) < latest;

export function migrateSqlite(db: Database.Database): void {
  if (applied(db) >= latest) return;
  db.transaction(() => {
    db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL DEFAULT (datetime('now')))`);
    const done = applied(db);
    for (const m of SQLITE_MIGRATIONS) {
      if (m.version <= done) continue;
      db.exec(m.sql);
      db.prepare('INSERT INTO schema_migrations (version, name) VALUES (?, ?)').run(m.version, m.name);
    }
  }).immediate();
}
