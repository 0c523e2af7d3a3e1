import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/index.js';
import { ROOT } from '../helpers/build.js';
import { createTestDatabase, type TestDatabase } from '../helpers/pg.js';
import { runStoreContract } from './contract.js';
import { admitInput, owner } from './fixtures/data.js';

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

  it('a claim skips a run whose row another transaction holds, and hasClaimable still counts it', async () => {
    const fresh = await createTestDatabase();
    const store = await openStore(fresh.url);
    const holder = new pg.Client({ connectionString: fresh.url });
    try {
      const a = await store.admit(admitInput());
      if (a.kind !== 'created') throw new Error('admission failed');
      await holder.connect();
      await holder.query('BEGIN');
      await holder.query('SELECT id FROM runs WHERE id = $1 FOR UPDATE', [a.run.id]);
      // SKIP LOCKED: an empty claim while the run is still there to take.
      expect(await store.claimNext(owner('w'), 60_000)).toBeNull();
      expect(await store.hasClaimable()).toBe(true);
      await holder.query('COMMIT');
      expect((await store.claimNext(owner('w'), 60_000))?.runId).toBe(a.run.id);
      expect(await store.hasClaimable()).toBe(false);
    } finally {
      await holder.end().catch(() => {});
      await store.close();
      await fresh.drop();
    }
  });

  it("a frozen owner's open write is ended by the server: its run is taken over, and its write, continued, is fenced out", async () => {
    const fresh = await createTestDatabase();
    const store = await openStore(fresh.url);
    try {
      const a = await store.admit(admitInput());
      if (a.kind !== 'created') throw new Error('admission failed');
      const child = spawn(
        process.execPath,
        [
          join(import.meta.dirname, 'fixtures', 'frozen-owner.mjs'),
          join(ROOT, 'dist'),
          fresh.url,
          a.run.id,
          '300',
        ],
        { stdio: ['ignore', 'pipe', 'inherit'] },
      );
      let out = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => {
        out += d;
      });
      const exited = once(child, 'exit');
      try {
        while (!out.includes('locked\n')) await once(child.stdout, 'data');
        // Its lease has expired, but its transaction holds the row: claims skip the run until
        // the server ends that transaction (idle_in_transaction_session_timeout, 300 ms here).
        // Without that bound this loop never ends: the frozen process keeps its connection.
        let taken = null;
        while (!taken) {
          taken = await store.claimNext(owner('taker'), 60_000);
          if (!taken) {
            expect(await store.hasClaimable()).toBe(true);
            await new Promise((r) => setTimeout(r, 50));
          }
        }
        expect(taken).toMatchObject({ runId: a.run.id, token: 2 });
      } finally {
        child.kill('SIGCONT');
      }
      const [code] = await exited;
      expect(code).toBe(0);
      expect(out.trim().split('\n')).toEqual(['locked', 'fenced_out']);
    } finally {
      await store.close();
      await fresh.drop();
    }
  }, 60_000);
});
