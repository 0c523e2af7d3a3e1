import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll } from 'vitest';
import { openStore } from '../../src/store/index.js';
import { runStoreContract } from './contract.js';

const dir = mkdtempSync(join(tmpdir(), 'revloop-sqlite-'));
let n = 0;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

runStoreContract(
  'sqlite',
  () => openStore(`sqlite:ledger-${n++}/ledger.db`, { repoRoot: dir }),
  undefined,
  async (_store, table, runId, json) => {
    // The file of the store opened last (each test opens one).
    const db = new Database(join(dir, `ledger-${n - 1}`, 'ledger.db'));
    const column = table === 'stages' ? 'result' : 'reply';
    db.prepare(`UPDATE ${table} SET ${column} = ? WHERE run_id = ?`).run(json, runId);
    db.close();
  },
);
