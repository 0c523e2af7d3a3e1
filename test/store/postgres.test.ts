import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/index.js';
import { createTestDatabase, type TestDatabase } from '../helpers/pg.js';
import { runStoreContract } from './contract.js';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db?.drop();
});

runStoreContract(
  'postgres',
  async () => {
    await openStore(db.url).then((s) => s.close()); // migrate before emptying
    await db.truncate();
    return openStore(db.url);
  },
  undefined,
  async (_store, table, runId, json) => {
    const pg = (await import('pg')).default;
    const admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
    const column = table === 'stages' ? 'result' : 'reply';
    await admin.query(`UPDATE ${table} SET ${column} = $1::jsonb WHERE run_id = $2`, [json, runId]);
    await admin.end();
  },
);

describe('postgres specifics', () => {
  it('migrates once when many openers race on a fresh database', async () => {
    const fresh = await createTestDatabase();
    try {
      const stores = await Promise.all(Array.from({ length: 6 }, () => openStore(fresh.url)));
      await Promise.all(stores.map((s) => s.close()));
    } finally {
      await fresh.drop();
    }
  });

  it('admits on after another process altered the runs table under its prepared lookup', async () => {
    const fresh = await createTestDatabase();
    const store = await openStore(fresh.url);
    try {
      const admit = (runId: string) =>
        store.admit({
          runId,
          admissionKey: 'k1',
          changeKey: 'c#1',
          repo: 'r',
          snapshotKey: 'sk1',
          snapshot: { head: 'h'.repeat(40), budgets: { rounds: 1, wallSeconds: 60, costUsd: 0.01 } } as never,
        });
      expect((await admit('r0')).kind).toBe('created');
      // Every pooled connection prepares the held-key lookup.
      await Promise.all(Array.from({ length: 8 }, (_, i) => admit(`r${i + 1}`)));
      const pg = (await import('pg')).default;
      const admin = new pg.Client({ connectionString: fresh.url });
      await admin.connect();
      await admin.query('ALTER TABLE runs ADD COLUMN added_by_a_newer_revloop text');
      await admin.end();
      const again = await Promise.all(Array.from({ length: 8 }, (_, i) => admit(`s${i}`)));
      expect(again.every((r) => r.kind === 'existing' && r.run.id === 'r0')).toBe(true);
    } finally {
      await store.close();
      await fresh.drop();
    }
  });

  it('reports an unreachable server as store_unavailable without the password', async () => {
    const err = await openStore('postgres://revloop:s3cr3t-pw@127.0.0.1:1/ledger').catch((e: unknown) => e);
    expect(err).toMatchObject({ name: 'StoreUnavailableError', code: 'store_unavailable' });
    const text = `${(err as Error).message} ${JSON.stringify((err as { data: unknown }).data)}`;
    expect(text).toContain('127.0.0.1:1/ledger');
    expect(text).not.toContain('s3cr3t-pw');
  });
});
