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

runStoreContract('postgres', async () => {
  await openStore(db.url).then((s) => s.close()); // migrate before emptying
  await db.truncate();
  return openStore(db.url);
});

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

  it('reports an unreachable server as store_unavailable without the password', async () => {
    const err = await openStore('postgres://revloop:s3cr3t-pw@127.0.0.1:1/ledger').catch((e: unknown) => e);
    expect(err).toMatchObject({ name: 'StoreUnavailableError', code: 'store_unavailable' });
    const text = `${(err as Error).message} ${JSON.stringify((err as { data: unknown }).data)}`;
    expect(text).toContain('127.0.0.1:1/ledger');
    expect(text).not.toContain('s3cr3t-pw');
  });
});
