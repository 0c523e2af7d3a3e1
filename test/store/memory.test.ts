import { MemoryStore } from '../../src/store/memory.js';
import { runStoreContract } from './contract.js';

runStoreContract(
  'memory',
  async () => new MemoryStore(),
  undefined,
  // The memory store keeps rows as written and parses them on the way out, as the SQL stores do.
  async (store, table, runId, json) => {
    if (!(store instanceof MemoryStore)) throw new Error('not a memory store');
    // biome-ignore lint/complexity/useLiteralKeys: bracket access reaches the private rows, for this test only
    const rows = table === 'stages' ? store['stages'] : [...store['verdicts'].values()];
    for (const row of rows) {
      if (row.runId !== runId) continue;
      if ('result' in row) row.result = JSON.parse(json);
      else row.reply = JSON.parse(json);
    }
  },
);
