/**
 * The DeliveryLedger contract (ports/deliveries.ts), written once and run
 * against every store: a delivery is kept once by its id and once by its
 * body, claims exclude each other, the first delivery that admits a run names
 * its trigger, and closing a pull request cancels only its queued runs.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { NewDelivery } from '../../src/ports/deliveries.js';
import type { Store } from '../../src/ports/store.js';
import { admitInput, owner, uid } from './fixtures/data.js';

const delivery = (over: Partial<NewDelivery> = {}): NewDelivery => ({
  forge: 'github',
  deliveryId: uid('d-'),
  bodyDigest: uid('sha256:'),
  event: 'pull_request/opened',
  intent: 'review',
  repository: 'acme/widgets',
  pr: 7,
  head: 'h'.repeat(40),
  baseBranch: 'main',
  sender: 'alice',
  ...over,
});

export function runDeliveriesContract(name: string, open: () => Promise<Store>): void {
  describe(`DeliveryLedger contract: ${name}`, () => {
    let store: Store;
    beforeEach(async () => {
      store = await open();
    });
    afterEach(async () => {
      await store.close();
    });

    it('reports, for /metrics, deliveries by state, the queue and its oldest run, runs by status', async () => {
      const empty = await store.deliveries.serviceStats();
      expect(empty).toMatchObject({ deliveries: [], runs: [], queued: 0, oldestQueuedMs: null, spentUsd: 0 });
      expect(empty.schema.applied).toBe(empty.schema.wanted);
      const d = delivery();
      await store.deliveries.recordDelivery(d);
      await store.deliveries.recordDelivery(delivery());
      const a = await store.admit(admitInput());
      if (a.kind !== 'created') throw new Error('no run');
      await store.deliveries.endDelivery('github', d.deliveryId, {
        state: 'admitted',
        runId: a.run.id,
        detail: null,
      });
      const s = await store.deliveries.serviceStats();
      expect(s.deliveries.sort((x, y) => x.state.localeCompare(y.state))).toEqual([
        { state: 'admitted', count: 1 },
        { state: 'pending', count: 1 },
      ]);
      expect(s.runs).toEqual([{ status: 'queued', outcome: null, count: 1 }]);
      expect(s).toMatchObject({ queued: 1, spentUsd: 0, spentUsd24h: 0 });
      expect(s.oldestQueuedMs).toBeGreaterThanOrEqual(0);
    });

    it('keeps a delivery once, by its id and by its body, even when the copies race', async () => {
      const d = delivery();
      const copies = await Promise.all(Array.from({ length: 5 }, () => store.deliveries.recordDelivery(d)));
      expect(copies.filter((c) => c.inserted)).toHaveLength(1);
      for (const c of copies)
        expect(c.delivery).toMatchObject({ deliveryId: d.deliveryId, state: 'pending' });
      // Another id with the same bytes (a second hook of one push) is the same delivery.
      const twin = await store.deliveries.recordDelivery({ ...d, deliveryId: uid('d-') });
      expect(twin).toMatchObject({ inserted: false, delivery: { deliveryId: d.deliveryId } });
      // The same id under the other forge is another delivery.
      const other = await store.deliveries.recordDelivery({ ...d, forge: 'gitlab' });
      expect(other.inserted).toBe(true);
      expect(await store.deliveries.listDeliveries(10)).toHaveLength(2);
    });

    it('lists deliveries newest first, filtered by state, repository, pull request and run', async () => {
      const a = await store.admit(admitInput());
      if (a.kind !== 'created') throw new Error(a.kind);
      const first = delivery({ pr: 3 });
      const other = delivery({ pr: 4, repository: 'acme/gadgets' });
      const last = delivery({ pr: 3 });
      for (const d of [first, other, last]) await store.deliveries.recordDelivery(d);
      await store.deliveries.endDelivery('github', first.deliveryId, {
        state: 'admitted',
        runId: a.run.id,
        detail: null,
      });
      const ids = async (filter?: Parameters<Store['deliveries']['listDeliveries']>[1]) =>
        (await store.deliveries.listDeliveries(10, filter)).map((d) => d.deliveryId);
      expect(await ids({ pr: 3 })).toEqual(expect.arrayContaining([first.deliveryId, last.deliveryId]));
      expect(await ids({ pr: 3 })).toHaveLength(2);
      expect(await ids({ state: 'pending' })).toEqual(
        expect.arrayContaining([other.deliveryId, last.deliveryId]),
      );
      expect(await ids({ state: 'pending' })).toHaveLength(2);
      expect(await ids({ runId: a.run.id })).toEqual([first.deliveryId]);
      expect(await ids({ repository: 'acme/gadgets', pr: 4 })).toEqual([other.deliveryId]);
      expect(await ids({ repository: 'acme/gadgets', pr: 3 })).toEqual([]);
      expect(await ids({ state: 'admitted', pr: 3 })).toEqual([first.deliveryId]);
      expect(await store.deliveries.listDeliveries(1, { pr: 3 })).toHaveLength(1);
    });

    it('claims a pending delivery once until its claim lapses, and never an ended one', async () => {
      const d = delivery();
      await store.deliveries.recordDelivery(d);
      const [a, b] = await Promise.all([
        store.deliveries.claimDelivery(60_000),
        store.deliveries.claimDelivery(60_000),
      ]);
      expect([a, b].filter(Boolean)).toHaveLength(1);
      expect((a ?? b)?.attempts).toBe(1);
      await store.deliveries.retryDelivery('github', d.deliveryId, 0, 'ledger away');
      const again = await store.deliveries.claimDelivery(60_000);
      expect(again).toMatchObject({ deliveryId: d.deliveryId, attempts: 2, detail: 'ledger away' });
      await store.deliveries.endDelivery('github', d.deliveryId, {
        state: 'ignored',
        runId: null,
        detail: 'nothing to review',
      });
      await store.deliveries.retryDelivery('github', d.deliveryId, 0, 'late');
      expect(await store.deliveries.claimDelivery(60_000)).toBeNull();
      expect(await store.deliveries.getDelivery('github', d.deliveryId)).toMatchObject({
        state: 'ignored',
        detail: 'nothing to review',
      });
    });

    it('records the first admitting delivery as the run trigger, and ends a delivery once', async () => {
      const a = await store.admit(admitInput());
      if (a.kind !== 'created') throw new Error(a.kind);
      const first = delivery({ pr: 12 });
      const second = delivery({ pr: 12 });
      await store.deliveries.recordDelivery(first);
      await store.deliveries.recordDelivery(second);
      await store.deliveries.endDelivery('github', second.deliveryId, {
        state: 'admitted',
        runId: a.run.id,
        detail: null,
      });
      await store.deliveries.endDelivery('github', first.deliveryId, {
        state: 'admitted',
        runId: a.run.id,
        detail: null,
      });
      // A second end of an ended delivery changes nothing.
      const again = await store.deliveries.endDelivery('github', first.deliveryId, {
        state: 'failed',
        runId: null,
        detail: 'late',
      });
      expect(again).toMatchObject({ state: 'admitted', runId: a.run.id });
      expect(await store.deliveries.triggerOf(a.run.id)).toMatchObject({
        runId: a.run.id,
        forge: 'github',
        repository: 'acme/widgets',
        pr: 12,
        deliveryId: second.deliveryId,
        publishedAt: null,
      });
      expect(await store.deliveries.triggerOf('no-such-run')).toBeNull();
    });

    it('offers an ended run of the repository for publication once', async () => {
      const a = await store.admit(admitInput());
      if (a.kind !== 'created') throw new Error(a.kind);
      const d = delivery();
      await store.deliveries.recordDelivery(d);
      await store.deliveries.endDelivery('github', d.deliveryId, {
        state: 'admitted',
        runId: a.run.id,
        detail: null,
      });
      // Not ended yet: nothing to publish.
      expect(await store.deliveries.claimPublication('acme/widgets', 60_000)).toBeNull();
      const lease = await store.acquireLease(a.run.id, owner('w1'), 60_000);
      if (!lease) throw new Error('no lease');
      await store.finishRun(lease, {
        status: 'failed',
        outcome: null,
        stopReason: null,
        reason: 'reviewer_failed',
        detail: 'x',
      });
      expect(await store.deliveries.claimPublication('other/repo', 60_000)).toBeNull();
      const [p, q] = await Promise.all([
        store.deliveries.claimPublication('acme/widgets', 60_000),
        store.deliveries.claimPublication('acme/widgets', 60_000),
      ]);
      expect([p, q].filter(Boolean)).toHaveLength(1);
      await store.deliveries.endPublication(a.run.id, 'published');
      expect(await store.deliveries.claimPublication('acme/widgets', 0)).toBeNull();
      expect(await store.deliveries.triggerOf(a.run.id)).toMatchObject({ detail: 'published' });
      expect((await store.deliveries.triggerOf(a.run.id))?.publishedAt).toEqual(expect.any(Number));
    });

    it("cancels a change's queued runs, leaving running runs and other changes alone", async () => {
      const queued = await store.admit(admitInput({ changeKey: 'repo#pull/7' }));
      const running = await store.admit(admitInput({ changeKey: 'repo#pull/7' }));
      const other = await store.admit(admitInput({ changeKey: 'repo#pull/8' }));
      if (queued.kind !== 'created' || running.kind !== 'created' || other.kind !== 'created')
        throw new Error('not created');
      await store.acquireLease(running.run.id, owner('w1'), 60_000);
      const cancelled = await store.deliveries.cancelQueued('repo#pull/7', 'the pull request was closed');
      expect(cancelled.map((r) => r.id)).toEqual([queued.run.id]);
      expect(cancelled[0]).toMatchObject({
        status: 'aborted',
        reason: 'superseded',
        detail: 'the pull request was closed',
        outcome: null,
      });
      expect((await store.getRun(running.run.id))?.status).toBe('running');
      expect((await store.getRun(other.run.id))?.status).toBe('queued');
      expect(await store.deliveries.cancelQueued('repo#pull/7', 'again')).toEqual([]);
      // A claim never takes the cancelled run.
      const claimed = await store.claimNext(owner('w2'), 60_000);
      expect(claimed?.runId).toBe(other.run.id);
    });
  });
}
