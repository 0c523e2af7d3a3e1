/**
 * Applies pending migrations while holding a session advisory lock, so
 * migrators racing on a fresh database apply each migration once; each
 * migration and its schema_migrations row commit together.
 */
import type pg from 'pg';
import { PG_MIGRATIONS } from './migrations/index.js';

/** Advisory lock keys (arbitrary, fixed): one for migration, one for admission. */
export const MIGRATE_LOCK = 0x7265766c; // 'revl'
export const ADMIT_LOCK = 0x61646d74; // 'admt'

/** The newest migration applied, or 0 on a database without the ledger's schema; no DDL, no lock. */
async function appliedVersion(client: pg.PoolClient): Promise<number> {
  const present = await client.query<{ t: string | null }>("SELECT to_regclass('schema_migrations') AS t");
  if (!present.rows[0]?.t) return 0;
  const { rows } = await client.query<{ v: number | null }>(
    'SELECT max(version) AS v FROM schema_migrations',
  );
  return Number(rows[0]?.v ?? 0);
}

export async function migratePostgres(pool: pg.Pool): Promise<void> {
  const client = await pool.connect();
  // A checked-out client is the pool's no longer: a server ending the session while this one
  // waits on the lock would throw from the socket, crashing the process. The query reports it.
  const onError = () => {};
  client.on('error', onError);
  try {
    // A current schema needs nothing, and asking changes nothing: a read-only ledger (a hot
    // standby, a read-only role) stays readable, and a fleet starting together takes no lock.
    const latest = PG_MIGRATIONS.at(-1)?.version ?? 0;
    if ((await appliedVersion(client)) >= latest) return;
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATE_LOCK]);
    try {
      await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
        version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
      const { rows } = await client.query<{ v: number | null }>(
        'SELECT max(version) AS v FROM schema_migrations',
      );
      const done = rows[0]?.v ?? 0;
      for (const m of PG_MIGRATIONS) {
        if (m.version <= done) continue;
        await client.query('BEGIN');
        try {
          await client.query(m.sql);
          await client.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [
            m.version,
            m.name,
          ]);
          await client.query('COMMIT');
        } catch (err) {
          await client.query('ROLLBACK');
          throw err;
        }
      }
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATE_LOCK]);
    }
  } finally {
    client.off('error', onError);
    client.release();
  }
}
