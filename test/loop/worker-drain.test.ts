/**
 * `worker --exit-when-idle` exits when nothing is left to claim, not when one
 * claim comes back empty. On PostgreSQL a claim skips a run whose row another
 * transaction holds (SKIP LOCKED): a sibling lane's claim under way, or a
 * frozen owner's open write. Seen as a busy CI machine's worker exiting with a
 * run still queued (queue.test) and a taker exiting without taking the frozen
 * worker's run (lease.test). The lock here is released by the worker's own
 * second claim, so the test's verdict is a count of claims, never a time.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admit } from '../../src/loop/admission.js';
import { runWorker } from '../../src/loop/operations.js';
import type { Store } from '../../src/ports/store.js';
import { createTestDatabase, type TestDatabase } from '../helpers/pg.js';
import { withMethod } from '../helpers/with-method.js';
import { baseConfig, inProcess, makeReviewRepo, pass, type ReviewRepo } from './helpers.js';

let db: TestDatabase;
const repos: ReviewRepo[] = [];
beforeAll(async () => {
  db = await createTestDatabase('revloop_worker_drain');
});
afterAll(async () => {
  for (const r of repos) await r.cleanup();
  await db?.drop();
});

/** The store, with `onClaim(n)` awaited before the n-th claim goes to it. */
function beforeClaims(store: Store, onClaim: (n: number) => Promise<void>): Store {
  let claims = 0;
  return withMethod(store, 'claimNext', (claim) => async (...a) => {
    await onClaim(++claims);
    return claim(...a);
  });
}

describe('worker --exit-when-idle on PostgreSQL', () => {
  it('does not exit while a queued run is held by another transaction; it drives the run once the hold ends', async () => {
    const r = await makeReviewRepo({ config: (a) => baseConfig(a) });
    repos.push(r);
    r.plan({ reviewer: [{ reply: pass }] });
    const p = await inProcess(r.dir, { url: db.url });
    const holder = new pg.Client({ connectionString: db.url });
    try {
      const a = await admit(p.deps, { repoDir: r.dir, headRef: 'topic', configFrom: 'base' });
      if (a.result.kind === 'deferred') throw new Error('deferred');
      const runId = a.result.run.id;
      await holder.connect();
      await holder.query('BEGIN');
      await holder.query('SELECT id FROM runs WHERE id = $1 FOR UPDATE', [runId]);
      let released = 0;
      const store = beforeClaims(p.store, async (n) => {
        // The first claim meets the hold; a second claim means the worker stayed.
        if (n === 2) {
          await holder.query('COMMIT');
          released = n;
        }
      });
      const driven: string[] = [];
      const res = await runWorker(
        { ...p.deps, store },
        { concurrency: 1, exitWhenIdle: true, onRun: (d) => driven.push(d.run.id) },
      );
      expect(released).toBe(2);
      expect(res.runs).toBe(1);
      expect(driven).toEqual([runId]);
      const run = await p.store.getRun(runId);
      expect(run).toMatchObject({ status: 'completed', outcome: 'clear' });
    } finally {
      await holder.end().catch(() => {});
      await p.close();
    }
  }, 120_000);
});
