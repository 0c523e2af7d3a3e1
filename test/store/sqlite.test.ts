import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { openStore } from '../../src/store/index.js';
import { runStoreContract } from './contract.js';

const dir = mkdtempSync(join(tmpdir(), 'revloop-sqlite-'));
let n = 0;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

runStoreContract('sqlite', () => openStore(`sqlite:ledger-${n++}/ledger.db`, { repoRoot: dir }));
