/**
 * A fresh PostgreSQL database per test file, dropped afterwards. Postgres must
 * be reachable at 127.0.0.1:5432 (user postgres, trust auth): when it is not,
 * creating the database throws and the tests fail rather than skip.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export const PG_ADMIN_URL = process.env.REVLOOP_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface TestDatabase {
  name: string;
  url: string;
  /** Empties every ledger table (between tests of one file). */
  truncate(): Promise<void>;
  drop(): Promise<void>;
}

const withAdmin = async <T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> => {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
};

export async function createTestDatabase(prefix = 'revloop_test'): Promise<TestDatabase> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  await withAdmin(PG_ADMIN_URL, (c) => c.query(`CREATE DATABASE ${name}`));
  const u = new URL(PG_ADMIN_URL);
  u.pathname = `/${name}`;
  const url = u.toString();
  return {
    name,
    url,
    truncate: () =>
      withAdmin(url, async (c) => {
        const { rows } = await c.query<{ t: string }>(
          `SELECT string_agg(quote_ident(tablename), ', ') AS t FROM pg_tables
           WHERE schemaname = 'public' AND tablename <> 'schema_migrations'`,
        );
        if (rows[0]?.t) await c.query(`TRUNCATE ${rows[0].t} RESTART IDENTITY CASCADE`);
      }),
    drop: () =>
      withAdmin(PG_ADMIN_URL, (c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => {}),
  };
}
