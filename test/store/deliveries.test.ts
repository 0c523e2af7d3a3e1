/** The DeliveryLedger contract against the three stores (memory, SQLite, PostgreSQL). */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { openStore } from '../../src/store/index.js';
import { MemoryStore } from '../../src/store/memory.js';
import { createTestDatabase, type TestDatabase } from '../helpers/pg.js';
import { runDeliveriesContract } from './deliveries-contract.js';

const dir = mkdtempSync(join(tmpdir(), 'revloop-deliveries-'));
let n = 0;
let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase('revloop_deliveries');
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await db?.drop();
});

runDeliveriesContract('memory', async () => new MemoryStore());
runDeliveriesContract('sqlite', () => openStore(`sqlite:ledger-${n++}/ledger.db`, { repoRoot: dir }));
runDeliveriesContract('postgres', async () => {
  await openStore(db.url).then((s) => s.close()); // migrate before emptying
  await db.truncate();
  return openStore(db.url);
});
