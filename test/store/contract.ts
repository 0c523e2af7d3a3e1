/**
 * The Store contract, written once and run against every implementation
 * (memory, SQLite, PostgreSQL). `open` must return an empty ledger each time.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Lease } from '../../src/core/ledger.js';
import { RUN_TRANSITIONS } from '../../src/core/run-state.js';
import type { RunEnd, StageCompletion, Store } from '../../src/ports/store.js';
import {
  admitInput,
  clear,
  failed,
  finding,
  fixResult,
  owner,
  refuteResult,
  reviewResult,
  sleep,
  uid,
} from './fixtures/data.js';

/**
 * Overwrites, behind the store's back, the stored JSON of one run's rows in
 * `table` (stages.result or verdicts.reply): what a bug, a hand edit or
 * another revloop could leave there.
 */
export type Tamper = (
  store: Store,
  table: 'stages' | 'verdicts',
  runId: string,
  json: string,
) => Promise<void>;

export function runStoreContract(
  name: string,
  open: () => Promise<Store>,
  cleanup?: (store: Store) => Promise<void>,
  tamper?: Tamper,
): void {
  describe(`Store contract: ${name}`, () => {
    let store: Store;
    beforeEach(async () => {
      store = await open();
    });
    afterEach(async () => {
      await cleanup?.(store);
      await store.close();
    });

    const running = async (over = {}): Promise<Lease> => {
      const a = await store.admit(admitInput(over));
      if (a.kind !== 'created') throw new Error(`expected created, got ${a.kind}`);
      const lease = await store.acquireLease(a.run.id, owner('w1'), 60_000);
      if (!lease) throw new Error('no lease');
      return lease;
    };

    describe('admission (invariant 3)', () => {
      it('creates a run once and answers the same key with it', async () => {
        const first = admitInput();
        const a = await store.admit(first);
        expect(a.kind).toBe('created');
        if (a.kind !== 'created') return;
        expect(a.run).toMatchObject({
          id: first.runId,
          status: 'queued',
          fencingToken: 0,
          head: 'h'.repeat(40),
        });
        expect(a.run.snapshot).toEqual(first.snapshot);
        const b = await store.admit({ ...first, runId: uid('run-') });
        expect(b.kind).toBe('existing');
        if (b.kind === 'existing') expect(b.run.id).toBe(first.runId);
      });

      it('creates exactly one run when admissions of one key race', async () => {
        const key = uid('ak-');
        const res = await Promise.all(
          Array.from({ length: 12 }, () => store.admit(admitInput({ admissionKey: key, snapshotKey: 'sk' }))),
        );
        expect(res.filter((r) => r.kind === 'created')).toHaveLength(1);
        const ids = new Set(res.map((r) => (r.kind === 'deferred' ? '' : r.run.id)));
        expect(ids.size).toBe(1);
        expect(await store.listRuns({ admissionKey: key })).toHaveLength(1);
      });

      it('answers a completed run and admits afresh after a failed one', async () => {
        const lease = await running();
        const run = (await store.getRun(lease.runId))!;
        await store.finishRun(lease, failed);
        const again = await store.admit(admitInput({ admissionKey: run.admissionKey }));
        expect(again.kind).toBe('created');
        if (again.kind !== 'created') return;
        expect(again.run.id).not.toBe(run.id);
        const l2 = (await store.acquireLease(again.run.id, owner('w2'), 60_000))!;
        await store.finishRun(l2, clear);
        const third = await store.admit(admitInput({ admissionKey: run.admissionKey }));
        expect(third.kind).toBe('existing');
        if (third.kind === 'existing')
          expect(third.run).toMatchObject({ id: again.run.id, outcome: 'clear' });
      });

      describe('a revision reviewed again on purpose (rerun)', () => {
        const asked = { by: 'ada (GITHUB_ACTOR)', reason: 'the security reviewer timed out twice' };
        const finish = async (runId: string, end = clear) => {
          const l = (await store.acquireLease(runId, owner(uid('w-')), 60_000))!;
          await store.finishRun(l, end);
        };

        it('is a new run under its own key, with who asked and why; a plain admission then answers with it', async () => {
          const first = await running();
          await store.finishRun(first, clear);
          const key = (await store.getRun(first.runId))!.admissionKey;
          const re = await store.admit(admitInput({ admissionKey: key, rerun: asked }));
          expect(re.kind).toBe('created');
          if (re.kind !== 'created') return;
          expect(re.run.rerun).toEqual({ ordinal: 1, ...asked });
          expect(re.run.admissionKey).not.toBe(key);
          expect((await store.getRun(first.runId))!.rerun).toBeNull();
          // Plain admissions, and a rerun asked while it is under way, answer with the rerun.
          for (const rerun of [undefined, { by: 'bob', reason: 'again' }]) {
            const again = await store.admit(admitInput({ admissionKey: key, rerun }));
            expect(again).toMatchObject({ kind: 'existing', run: { id: re.run.id } });
          }
          await finish(re.run.id);
          const second = await store.admit(
            admitInput({ admissionKey: key, rerun: { by: 'bob', reason: 'x' } }),
          );
          expect(second).toMatchObject({
            kind: 'created',
            run: { rerun: { ordinal: 2, by: 'bob', reason: 'x' } },
          });
        });

        it('a rerun that failed is admitted again by a plain admission, still that rerun', async () => {
          const first = await running();
          await store.finishRun(first, clear);
          const key = (await store.getRun(first.runId))!.admissionKey;
          const re = await store.admit(admitInput({ admissionKey: key, rerun: asked }));
          if (re.kind !== 'created') throw new Error(re.kind);
          await finish(re.run.id, failed);
          const retry = await store.admit(admitInput({ admissionKey: key }));
          expect(retry).toMatchObject({ kind: 'created', run: { rerun: { ordinal: 1, ...asked } } });
          if (retry.kind === 'created') expect(retry.run.id).not.toBe(re.run.id);
        });

        it('of a revision never admitted is its first run: there is nothing to review again', async () => {
          const first = await store.admit(admitInput({ rerun: asked }));
          expect(first).toMatchObject({ kind: 'created', run: { rerun: null } });
        });

        it('racing reruns of one revision create one rerun', async () => {
          const first = await running();
          await store.finishRun(first, clear);
          const key = (await store.getRun(first.runId))!.admissionKey;
          const res = await Promise.all(
            Array.from({ length: 12 }, (_, i) =>
              store.admit(admitInput({ admissionKey: key, rerun: { by: `p${i}`, reason: 'race' } })),
            ),
          );
          expect(res.filter((r) => r.kind === 'created')).toHaveLength(1);
          expect(new Set(res.map((r) => (r.kind === 'deferred' ? '' : r.run.id))).size).toBe(1);
        });
      });

      it('defers on capacity, counting only queued and running runs, and never over-admits under a race', async () => {
        const limits = { maxActive: 5 };
        const res = await Promise.all(Array.from({ length: 12 }, () => store.admit(admitInput({ limits }))));
        expect(res.filter((r) => r.kind === 'created')).toHaveLength(5);
        const d = res.find((r) => r.kind === 'deferred');
        expect(d).toMatchObject({ kind: 'deferred', limit: 'capacity' });
        const one = res.find((r) => r.kind === 'created')!;
        if (one.kind !== 'created') return;
        await endUnheld(store, one.run.id, { ...failed, status: 'aborted', reason: 'unresumable' });
        expect((await store.admit(admitInput({ limits }))).kind).toBe('created');
        expect((await store.admit(admitInput({ limits }))).kind).toBe('deferred');
      });

      it("limits per repository count only that repository's runs, for capacity and for cost", async () => {
        const other = { repo: 'other/repo', changeKey: 'other/repo#1' };
        expect((await store.admit(admitInput(other))).kind).toBe('created');
        expect((await store.admit(admitInput(other))).kind).toBe('created');
        const capacity = { maxActive: 1, perRepository: true };
        expect((await store.admit(admitInput({ limits: capacity }))).kind).toBe('created');
        expect(await store.admit(admitInput({ limits: capacity }))).toMatchObject({
          kind: 'deferred',
          limit: 'capacity',
          detail: '1 runs queued or running, capacity 1',
        });
        // Without the scope, the other repository's runs count too.
        expect((await store.admit(admitInput({ limits: { maxActive: 3 } }))).kind).toBe('deferred');
        const cost = {
          costBudgetUsd: 1,
          costWindowSeconds: 86_400,
          perRepository: true,
          estimatedCostUsd: 1,
        };
        expect((await store.admit(admitInput({ ...other, limits: cost }))).kind).toBe('deferred');
        const fresh = { repo: 'fresh/repo', changeKey: 'fresh/repo#1' };
        expect((await store.admit(admitInput({ ...fresh, limits: cost }))).kind).toBe('created');
        expect((await store.admit(admitInput({ ...fresh, limits: cost }))).kind).toBe('deferred');
      });

      it('defers on cost: active runs count their budget, ended ones what they spent', async () => {
        const limits = { costBudgetUsd: 5, costWindowSeconds: 3600 };
        const a = await store.admit(admitInput({ limits }));
        expect((await store.admit(admitInput({ limits }))).kind).toBe('created');
        const c = await store.admit(admitInput({ limits }));
        expect(c).toMatchObject({ kind: 'deferred', limit: 'cost' });
        if (c.kind === 'deferred') expect(c.detail).toMatch(/4\.00.*5\.00/);
        if (a.kind !== 'created') return;
        const lease = (await store.acquireLease(a.run.id, owner('w'), 60_000))!;
        await store.completeStage(lease, {
          round: 1,
          stage: 'review',
          result: reviewResult(),
          run: { costUsd: 0.5 },
        });
        await store.finishRun(lease, clear);
        expect((await store.admit(admitInput({ limits }))).kind).toBe('created');
        expect((await store.admit(admitInput({ limits: { ...limits, estimatedCostUsd: 0.4 } }))).kind).toBe(
          'created',
        );
        expect((await store.admit(admitInput({ limits: { ...limits, estimatedCostUsd: 0.2 } }))).kind).toBe(
          'deferred',
        );
      });
    });

    describe('leases (invariant 13)', () => {
      it('acquires, refuses a second live owner, releases, and counts takeovers in the token', async () => {
        const a = await store.admit(admitInput());
        if (a.kind !== 'created') throw new Error('no run');
        const l1 = await store.acquireLease(a.run.id, owner('a'), 60_000);
        expect(l1).toMatchObject({ runId: a.run.id, token: 1, owner: owner('a') });
        expect((await store.getRun(a.run.id))!).toMatchObject({ status: 'running', leaseOwner: owner('a') });
        expect(await store.acquireLease(a.run.id, owner('b'), 60_000)).toBeNull();
        await store.releaseLease(l1!);
        expect((await store.getRun(a.run.id))!.leaseOwner).toBeNull();
        const l2 = await store.acquireLease(a.run.id, owner('b'), 60_000);
        expect(l2?.token).toBe(2);
        await store.releaseLease(l1!); // stale release: a no-op, b keeps the run
        expect((await store.getRun(a.run.id))!.leaseOwner).toEqual(owner('b'));
      });

      it('takes over an expired lease with a new token and fences the old owner out', async () => {
        const a = await store.admit(admitInput());
        if (a.kind !== 'created') throw new Error('no run');
        const old = (await store.acquireLease(a.run.id, owner('a'), 40))!;
        await sleep(120);
        const next = await store.acquireLease(a.run.id, owner('b'), 60_000);
        expect(next?.token).toBe(old.token + 1);
        await expect(store.beginRound(old, 1, 'late')).rejects.toMatchObject({
          code: 'fenced_out',
          data: { runId: a.run.id, leaseToken: old.token, currentToken: old.token + 1 },
        });
        expect(await store.listRounds(a.run.id)).toEqual([]);
      });

      it('takes over a live lease only with the current token (ifToken)', async () => {
        const a = await store.admit(admitInput());
        if (a.kind !== 'created') throw new Error('no run');
        const l1 = (await store.acquireLease(a.run.id, owner('a'), 60_000))!;
        const l2 = await store.acquireLease(a.run.id, owner('b'), 60_000, l1.token);
        expect(l2?.token).toBe(l1.token + 1);
        expect(await store.acquireLease(a.run.id, owner('c'), 60_000, l1.token)).toBeNull();
      });

      it('heartbeats extend the current lease only', async () => {
        const a = await store.admit(admitInput());
        if (a.kind !== 'created') throw new Error('no run');
        const l1 = (await store.acquireLease(a.run.id, owner('a'), 1_000))!;
        const hb = await store.heartbeat(l1, 120_000);
        expect(hb.token).toBe(l1.token);
        expect(hb.expiresAt).toBeGreaterThan(l1.expiresAt + 60_000);
        expect((await store.getRun(a.run.id))!.leaseExpiresAt).toBe(hb.expiresAt);
        const l2 = (await store.acquireLease(a.run.id, owner('b'), 60_000, l1.token))!;
        await expect(store.heartbeat(l1, 60_000)).rejects.toMatchObject({ code: 'fenced_out' });
        expect((await store.heartbeat(l2, 60_000)).token).toBe(l2.token);
      });

      it('claims the oldest queued run, then an expired one, never a terminal one', async () => {
        const ids: string[] = [];
        for (let i = 0; i < 3; i++) {
          const r = await store.admit(admitInput());
          if (r.kind === 'created') ids.push(r.run.id);
          await sleep(3);
        }
        await endUnheld(store, ids[2]!, { ...failed, status: 'aborted' });
        const c1 = (await store.claimNext(owner('a'), 60_000))!;
        expect(c1).toMatchObject({ runId: ids[0], token: 1 });
        const c2 = (await store.claimNext(owner('b'), 60_000))!;
        expect(c2.runId).toBe(ids[1]);
        expect(await store.claimNext(owner('c'), 60_000)).toBeNull();
        // a's lease runs out only now (a short lease from the start would expire early on a slow
        // machine, and the claims above would see it expired); a slower machine only waits longer.
        await store.heartbeat(c1, 40);
        await sleep(120);
        const c3 = (await store.claimNext(owner('c'), 60_000))!;
        expect(c3).toMatchObject({ runId: ids[0], token: 2 });
        expect(await store.acquireLease(ids[2]!, owner('d'), 60_000)).toBeNull();
      });
    });

    it("claims only the given repository's runs when a worker names its repository", async () => {
      const other = await store.admit(admitInput({ repo: 'git@example.invalid:acme/other' }));
      const mine = await store.admit(admitInput({ repo: 'git@example.invalid:acme/mine' }));
      if (other.kind !== 'created' || mine.kind !== 'created') throw new Error('admission failed');
      const c = (await store.claimNext(owner('w'), 60_000, 'git@example.invalid:acme/mine'))!;
      expect(c.runId).toBe(mine.run.id);
      expect(await store.claimNext(owner('w'), 60_000, 'git@example.invalid:acme/mine')).toBeNull();
      expect((await store.claimNext(owner('v'), 60_000))?.runId).toBe(other.run.id);
    });

    it('says whether a run is left to claim, of the repository named', async () => {
      const mine = 'git@example.invalid:acme/mine';
      expect(await store.hasClaimable()).toBe(false);
      await store.admit(admitInput({ repo: mine }));
      expect(await store.hasClaimable(mine)).toBe(true);
      expect(await store.hasClaimable('git@example.invalid:acme/other')).toBe(false);
      const lease = (await store.claimNext(owner('w'), 60_000, mine))!;
      // Running under a live lease: nothing to claim.
      expect(await store.hasClaimable(mine)).toBe(false);
      await store.releaseLease(lease);
      expect(await store.hasClaimable()).toBe(true);
    });

    it('hands each claimable run to exactly one of many concurrent claimers', async () => {
      const ids = new Set<string>();
      for (let i = 0; i < 3; i++) {
        const r = await store.admit(admitInput());
        if (r.kind === 'created') ids.add(r.run.id);
      }
      const claims = await Promise.all(
        Array.from({ length: 8 }, (_, i) => store.claimNext(owner(`c${i}`), 60_000)),
      );
      const got = claims.filter((c) => c !== null);
      expect(got).toHaveLength(3);
      expect(new Set(got.map((c) => c!.runId))).toEqual(ids);
      expect(got.every((c) => c!.token === 1)).toBe(true);
    });

    describe('fenced writes', () => {
      it('refuses every fenced write carrying a stale token, and writes nothing', async () => {
        const stale = await running();
        const fresh = (await store.acquireLease(stale.runId, owner('w2'), 60_000, stale.token))!;
        await store.beginAttempt(fresh, {
          callKey: 'ck',
          attemptNo: 1,
          round: 1,
          stage: 'review',
          role: 'reviewer',
          reviewer: 'r',
        });
        const writes: [string, () => Promise<unknown>][] = [
          ['heartbeat', () => store.heartbeat(stale, 1000)],
          ['beginRound', () => store.beginRound(stale, 1, 'h')],
          [
            'beginAttempt',
            () =>
              store.beginAttempt(stale, {
                callKey: 'ck2',
                attemptNo: 1,
                round: 1,
                stage: 'review',
                role: 'reviewer',
                reviewer: 'r',
              }),
          ],
          ['endAttempt', () => store.endAttempt(stale, 'ck', 1, 'ok', null)],
          ['markInterruptedAttempts', () => store.markInterruptedAttempts(stale)],
          ['recordVerdict', () => store.recordVerdict(stale, verdict(stale.runId, 'ck'))],
          ['recordVerdicts', () => store.recordVerdicts(stale, [{ verdict: verdict(stale.runId, 'ck') }])],
          [
            'completeStage',
            () =>
              store.completeStage(stale, {
                round: 1,
                stage: 'review',
                result: reviewResult(),
                findings: [finding(stale.runId, 'ck', 0)],
              }),
          ],
          ['finishRun', () => store.finishRun(stale, clear)],
        ];
        for (const [what, write] of writes)
          await expect(write(), what).rejects.toMatchObject({
            name: 'FencedOutError',
            code: 'fenced_out',
            data: { runId: stale.runId, leaseToken: stale.token, currentToken: fresh.token },
          });
        expect(await store.listRounds(stale.runId)).toEqual([]);
        expect(await store.listStages(stale.runId)).toEqual([]);
        expect(await store.listFindings(stale.runId)).toEqual([]);
        expect(await store.listVerdicts(stale.runId)).toEqual([]);
        expect((await store.listAttempts(stale.runId)).map((a) => [a.callKey, a.class])).toEqual([
          ['ck', 'started'],
        ]);
        expect((await store.getRun(stale.runId))!).toMatchObject({
          status: 'running',
          fencingToken: fresh.token,
        });
      });

      it('refuses writes after the run ended, even with its last token', async () => {
        const lease = await running();
        const end = await store.finishRun(lease, clear);
        expect(end).toMatchObject({
          status: 'completed',
          outcome: 'clear',
          leaseOwner: null,
          leaseExpiresAt: null,
        });
        expect(end.endedAt).not.toBeNull();
        await expect(store.beginRound(lease, 1, 'late')).rejects.toMatchObject({ code: 'fenced_out' });
        expect(await store.listRounds(lease.runId)).toEqual([]);
      });

      it('refuses a run end that breaks invariant 2', async () => {
        const lease = await running();
        await expect(store.finishRun(lease, { ...clear, outcome: null })).rejects.toMatchObject({
          code: 'ledger_conflict',
        });
        await expect(store.finishRun(lease, { ...failed, outcome: 'clear' })).rejects.toMatchObject({
          code: 'ledger_conflict',
        });
        expect((await store.getRun(lease.runId))!.status).toBe('running');
      });

      it('records rounds and attempts, and marks interrupted attempts unknown', async () => {
        const lease = await running();
        await store.beginRound(lease, 1, 'h1');
        await store.beginRound(lease, 1, 'h1'); // replay: no-op
        await expect(store.beginRound(lease, 1, 'h2')).rejects.toMatchObject({ code: 'ledger_conflict' });
        const a = { round: 1, stage: 'review' as const, role: 'reviewer' as const, reviewer: 'r' };
        await store.beginAttempt(lease, { ...a, callKey: 'k1', attemptNo: 1 });
        await store.endAttempt(lease, 'k1', 1, 'rate_limited', '429');
        await store.beginAttempt(lease, { ...a, callKey: 'k1', attemptNo: 2 });
        await store.beginAttempt(lease, { ...a, callKey: 'k2', attemptNo: 1 });
        await expect(store.endAttempt(lease, 'nope', 1, 'ok', null)).rejects.toMatchObject({
          code: 'ledger_conflict',
        });
        expect(await store.markInterruptedAttempts(lease)).toBe(2);
        const rows = await store.listAttempts(lease.runId);
        expect(rows.map((r) => [r.callKey, r.attemptNo, r.class, r.detail])).toEqual([
          ['k1', 1, 'rate_limited', '429'],
          ['k1', 2, 'unknown', null],
          ['k2', 1, 'unknown', null],
        ]);
        expect(rows.every((r) => r.endedAt !== null)).toBe(true);
        expect(await store.listRounds(lease.runId)).toMatchObject([
          { runId: lease.runId, round: 1, head: 'h1' },
        ]);
      });
    });

    it('records one verdict per call key and returns the first on a duplicate (invariant 6)', async () => {
      const lease = await running();
      const v = verdict(lease.runId, 'ck-1');
      const first = await store.recordVerdict(lease, v);
      expect(first.inserted).toBe(true);
      expect(first.verdict).toMatchObject({ ...v, recordedAt: expect.any(Number) });
      const dup = await store.recordVerdict(lease, { ...v, reply: { verdict: 'findings', findings: [] } });
      expect(dup).toEqual({ inserted: false, verdict: first.verdict });
      expect(await store.listVerdicts(lease.runId)).toEqual([first.verdict]);
    });

    it('records a batch of verdicts in one transaction: all of them, or none', async () => {
      const lease = await running();
      const a = { round: 1, stage: 'review' as const, role: 'reviewer' as const, reviewer: 'r' };
      for (const k of ['ck-1', 'ck-2', 'ck-3'])
        await store.beginAttempt(lease, { ...a, callKey: k, attemptNo: 1 });
      const paid = { ...verdict(lease.runId, 'ck-2'), costUsd: 0.5 };
      const got = await store.recordVerdicts(lease, [
        { verdict: { ...verdict(lease.runId, 'ck-1'), costUsd: 0 }, endsAttempt: 1, attemptDetail: 'd1' },
        { verdict: paid, endsAttempt: 1 },
      ]);
      expect(got.map((g) => [g.inserted, g.verdict.callKey])).toEqual([
        [true, 'ck-1'],
        [true, 'ck-2'],
      ]);
      expect(got[1]?.verdict).toMatchObject({ ...paid, recordedAt: expect.any(Number) });
      expect((await store.getRun(lease.runId))?.costUsd).toBe(0.5);
      const attempts = await store.listAttempts(lease.runId);
      expect(attempts.map((r) => [r.callKey, r.class, r.detail])).toEqual([
        ['ck-1', 'ok', 'd1'],
        ['ck-2', 'ok', null],
        ['ck-3', 'started', null],
      ]);
      // One item whose attempt was never begun: nothing of the batch is recorded, no cent added.
      await expect(
        store.recordVerdicts(lease, [
          { verdict: { ...verdict(lease.runId, 'ck-3'), costUsd: 1 }, endsAttempt: 1 },
          { verdict: verdict(lease.runId, 'ck-4'), endsAttempt: 1 },
        ]),
      ).rejects.toMatchObject({ code: 'ledger_conflict' });
      expect((await store.listVerdicts(lease.runId)).map((x) => x.callKey).sort()).toEqual(['ck-1', 'ck-2']);
      expect((await store.listAttempts(lease.runId)).find((r) => r.callKey === 'ck-3')?.class).toBe(
        'started',
      );
      expect((await store.getRun(lease.runId))?.costUsd).toBe(0.5);
      // A duplicate in a batch returns the verdict recorded first (invariant 6).
      const dup = await store.recordVerdicts(lease, [
        { verdict: { ...verdict(lease.runId, 'ck-1'), reply: { verdict: 'findings', findings: [] } } },
      ]);
      expect(dup).toEqual([{ inserted: false, verdict: got[0]?.verdict }]);
      expect(await store.recordVerdicts(lease, [])).toEqual([]);
    });

    it("records an eval judge's decision once per call key, on an ended run, unfenced", async () => {
      const lease = await running();
      await store.finishRun(lease, {
        status: 'completed',
        outcome: 'findings',
        stopReason: 'review_only',
        reason: null,
        detail: null,
      });
      const j = {
        callKey: 'jk-1',
        runId: lease.runId,
        caseId: 'case-1',
        judge: 'judge',
        finding: 0,
        defect: 1,
        promptDigest: 'pd',
        modelId: null,
        reply: { matches: true, reason: 'same bug' },
        costUsd: 0.01,
      };
      const first = await store.recordJudgement(j);
      expect(first).toEqual({ inserted: true, judgement: { ...j, recordedAt: expect.any(Number) } });
      const dup = await store.recordJudgement({
        ...j,
        reply: { matches: false, reason: 'changed its mind' },
      });
      expect(dup).toEqual({ inserted: false, judgement: first.judgement });
      await store.recordJudgement({ ...j, callKey: 'jk-2', finding: 1 });
      expect((await store.listJudgements(lease.runId)).map((x) => [x.callKey, x.reply.matches])).toEqual([
        ['jk-1', true],
        ['jk-2', true],
      ]);
      await expect(
        store.recordJudgement({ ...j, callKey: 'jk-3', runId: 'no-such-run' }),
      ).rejects.toMatchObject({ code: 'unknown_run' });
    });

    it('records a verdict and ends its attempt ok in one transaction, or neither', async () => {
      const lease = await running();
      const a = { round: 1, stage: 'review' as const, role: 'reviewer' as const, reviewer: 'r' };
      await store.beginAttempt(lease, { ...a, callKey: 'ck-a', attemptNo: 1 });
      const v = verdict(lease.runId, 'ck-a');
      const res = await store.recordVerdict(lease, v, 1);
      expect(res.inserted).toBe(true);
      expect((await store.listAttempts(lease.runId)).map((r) => [r.callKey, r.class])).toEqual([
        ['ck-a', 'ok'],
      ]);
      // An attempt never begun: nothing is recorded.
      await expect(store.recordVerdict(lease, verdict(lease.runId, 'ck-b'), 1)).rejects.toMatchObject({
        code: 'ledger_conflict',
      });
      expect((await store.listVerdicts(lease.runId)).map((x) => x.callKey)).toEqual(['ck-a']);
    });

    it('keeps whether each attempt ran confined; an attempt begun without saying did not', async () => {
      const lease = await running();
      const a = { round: 1, stage: 'review' as const, role: 'reviewer' as const, reviewer: 'r' };
      await store.beginAttempt(lease, { ...a, callKey: 'ck-c', attemptNo: 1, confined: true });
      await store.beginAttempt(lease, { ...a, callKey: 'ck-u', attemptNo: 1, confined: false });
      await store.beginAttempt(lease, { ...a, callKey: 'ck-n', attemptNo: 1 });
      const rows = (await store.listAttempts(lease.runId)).map((r) => [r.callKey, r.confined]);
      expect(rows.sort()).toEqual([
        ['ck-c', true],
        ['ck-n', false],
        ['ck-u', false],
      ]);
    });

    describe('completeStage (invariant 5)', () => {
      it('commits the result, findings, refutations, disputes and run fields together', async () => {
        const lease = await running();
        const f0 = finding(lease.runId, 'ck', 0);
        const f1 = finding(lease.runId, 'ck', 1);
        const review = reviewResult({ protectedEdited: ['b', 'a'], scope: {} });
        await store.completeStage(lease, {
          round: 1,
          stage: 'review',
          result: review,
          findings: [f0, f1],
        });
        const ref = { decision: 'refuted' as const, by: 'skeptic', reason: 'guarded', callKey: 'rk' };
        await store.completeStage(lease, {
          round: 1,
          stage: 'refute',
          result: refuteResult(),
          refutations: [{ findingId: f0.id, refutation: ref }],
        });
        await store.completeStage(lease, {
          round: 1,
          stage: 'fix',
          result: fixResult({ commit: 'c2' }),
          disputes: [{ findingId: f1.id, reason: 'by design' }],
          run: { head: 'c2', costUsd: 0.75, roundsDone: 1 },
        });
        const stages = await store.listStages(lease.runId);
        expect(stages.map((s) => [s.round, s.stage, s.result])).toEqual([
          [1, 'review', review],
          [1, 'refute', refuteResult()],
          [1, 'fix', fixResult({ commit: 'c2' })],
        ]);
        // The row a completion returns is the row a later read gives, field for field (the
        // driver keeps it instead of reading it back); a repeated completion returns the first.
        const checks: StageCompletion = { round: 2, stage: 'checks', result: { head: 'c2', results: [] } };
        const checked = await store.completeStage(lease, checks);
        expect(checked).toEqual(await stageOf(store, lease.runId, 2, 'checks'));
        expect(checked).toMatchObject({ runId: lease.runId, snapshotKey: stages[0]!.snapshotKey });
        expect(await store.completeStage(lease, checks)).toEqual(checked);
        const run = (await store.getRun(lease.runId))!;
        expect(stages[0]!.snapshotKey).toBe(run.snapshotKey);
        expect(run).toMatchObject({ head: 'c2', costUsd: 0.75, roundsDone: 1 });
        const fs = await store.listFindings(lease.runId);
        expect(fs).toEqual([
          { ...f0, refutation: ref, dispute: null, settlement: null },
          { ...f1, refutation: null, dispute: { reason: 'by design' }, settlement: null },
        ]);
      });

      it('records a refutation answered from memory with its origin, and the facts it was decided from', async () => {
        const lease = await running();
        const f0 = finding(lease.runId, 'ck', 0);
        await store.completeStage(lease, {
          round: 1,
          stage: 'review',
          result: reviewResult(),
          findings: [f0],
        });
        const origin = { runId: 'run-earlier', round: 2, findingId: 'f-earlier', callKey: 'rk-earlier' };
        const remembered = {
          decision: 'refuted' as const,
          by: 'skeptic (m1)',
          reason: 'refuted earlier in run run-earlier, round 2, by skeptic (m1): guarded',
          callKey: 'rk-earlier',
          origin,
        };
        const result = {
          ...refuteResult(),
          memory: [
            {
              forFinding: f0.id,
              judged: {
                findingId: 'f-earlier',
                runId: 'run-earlier',
                runCreatedAt: 1,
                round: 2,
                changeKey: 'repo#1',
                reviewer: 'r',
                file: 'a.ts',
                line: 1,
                endLine: 2,
                revision: 'c1',
                fingerprint: 'fp',
                severity: 'MAJOR' as const,
                reportedSeverity: 'MAJOR' as const,
                content: 'digest',
                refuter: 'identity',
                refutation: {
                  decision: 'refuted' as const,
                  by: 'skeptic (m1)',
                  reason: 'guarded',
                  callKey: 'rk-earlier',
                },
              },
              now: { file: 'a.ts', range: { start: 1, end: 2 } },
            },
          ],
          remembered: [{ findingId: f0.id, origin }],
        };
        await store.completeStage(lease, {
          round: 1,
          stage: 'refute',
          result,
          refutations: [{ findingId: f0.id, refutation: remembered }],
        });
        expect((await store.listFindings(lease.runId))[0]?.refutation).toEqual(remembered);
        expect((await stageOf(store, lease.runId, 1, 'refute'))?.result).toEqual(result);
      });

      it("records inherited settlements with the decision, never over a person's own", async () => {
        const lease = await running();
        const f0 = finding(lease.runId, 'ck', 0);
        const f1 = finding(lease.runId, 'ck', 1);
        await store.completeStage(lease, {
          round: 1,
          stage: 'review',
          result: reviewResult(),
          findings: [f0, f1],
        });
        const own = { by: 'bob', decision: 'upheld' as const, note: 'real', at: 5 };
        await store.settle(f1.id, own);
        const carried = {
          by: 'alice',
          decision: 'overturned' as const,
          note: 'carried over from alice',
          at: 4,
          origin: { findingId: 'earlier', runId: 'r0' },
        };
        const decide: StageCompletion = {
          round: 1,
          stage: 'decide',
          result: {
            reviewsComplete: true,
            openBlockers: [],
            blocking: 0,
            settlements: { [f0.id]: 'overturned', [f1.id]: 'upheld' },
            progressFacts: null,
            evidence: null,
            progress: [true],
            spentUsd: 0,
            decision: { kind: 'stop', outcome: 'clear', stopReason: 'clear' },
          },
          settlements: [
            { findingId: f0.id, settlement: carried },
            { findingId: f1.id, settlement: carried },
          ],
        };
        await store.completeStage(lease, decide);
        const fs = await store.listFindings(lease.runId);
        expect(fs.map((f) => f.settlement)).toEqual([carried, own]);
        await expect(
          store.completeStage(lease, {
            ...decide,
            round: 2,
            settlements: [{ findingId: 'missing', settlement: carried }],
          }),
        ).rejects.toMatchObject({ name: 'UnknownFindingError', code: 'unknown_finding' });
        expect((await store.listStages(lease.runId)).map((s) => s.round)).toEqual([1, 1]);
      });

      it('is a no-op when replayed with the same result and refuses a different one', async () => {
        const lease = await running();
        const f0 = finding(lease.runId, 'ck', 0);
        await store.completeStage(lease, {
          round: 1,
          stage: 'review',
          result: reviewResult({ head: 'a' }),
          findings: [f0],
        });
        await store.completeStage(lease, {
          round: 1,
          stage: 'review',
          // The same result with its keys in another order.
          result: { reviewsComplete: true, protectedEdited: [], scope: {}, verdicts: [], head: 'a' },
          findings: [f0],
        });
        await expect(
          store.completeStage(lease, { round: 1, stage: 'review', result: reviewResult({ head: 'b' }) }),
        ).rejects.toMatchObject({ name: 'StageConflictError', code: 'stage_conflict' });
        expect(await store.listStages(lease.runId)).toHaveLength(1);
        expect(await store.listFindings(lease.runId)).toHaveLength(1);
      });

      it('writes nothing when any part fails', async () => {
        const lease = await running();
        await expect(
          store.completeStage(lease, {
            round: 1,
            stage: 'review',
            result: reviewResult(),
            findings: [finding(lease.runId, 'ck', 0)],
            refutations: [
              {
                findingId: 'missing',
                refutation: { decision: 'upheld', by: 'r', reason: 'x', callKey: 'k' },
              },
            ],
            run: { head: 'moved', costUsd: 9 },
          }),
        ).rejects.toMatchObject({ name: 'UnknownFindingError', code: 'unknown_finding' });
        expect(await store.listStages(lease.runId)).toEqual([]);
        expect(await store.listFindings(lease.runId)).toEqual([]);
        expect((await store.getRun(lease.runId))!).toMatchObject({ head: 'h'.repeat(40), costUsd: 0 });
      });
    });

    describe("run transitions through core's table (invariant 2)", () => {
      const ends: RunEnd[] = [
        clear,
        failed,
        { ...failed, status: 'aborted', reason: 'superseded' },
        { ...failed, status: 'timed_out', reason: 'budget_wall' },
        { ...failed, status: 'unknown', reason: 'unresumable' },
      ];
      it.each(ends.map((e) => [e.status, e] as const))(
        'a running run ends %s through finishRun',
        async (to, end) => {
          expect(RUN_TRANSITIONS.running).toContain(to);
          const lease = await running();
          expect(await store.finishRun(lease, end)).toMatchObject({ status: to });
        },
      );
    });

    it('settles a finding once, by a named person', async () => {
      const lease = await running();
      const f0 = finding(lease.runId, 'ck', 0);
      await store.completeStage(lease, { round: 1, stage: 'review', result: reviewResult(), findings: [f0] });
      await store.finishRun(lease, { ...clear, outcome: 'findings', stopReason: 'awaiting_settlement' });
      const s = { by: 'alice', decision: 'overturned' as const, note: 'false positive', at: 1234 };
      await expect(store.settle('nope', s)).rejects.toMatchObject({
        name: 'UnknownFindingError',
        code: 'unknown_finding',
      });
      const settled = await store.settle(f0.id, s);
      expect(settled.settlement).toEqual(s);
      await expect(store.settle(f0.id, { ...s, by: 'bob' })).rejects.toMatchObject({
        name: 'AlreadySettledError',
        code: 'already_settled',
      });
      expect((await store.getFinding(f0.id))!.settlement).toEqual(s);
    });

    it('keeps what a finding judged and where a carried-over settlement came from (invariant 16)', async () => {
      const lease = await running();
      const f0 = { ...finding(lease.runId, 'ck', 0), content: 'sha256:lines-2-2' };
      const f1 = { ...finding(lease.runId, 'ck', 1), content: null };
      await store.completeStage(lease, {
        round: 1,
        stage: 'review',
        result: reviewResult(),
        findings: [f0, f1],
      });
      await store.finishRun(lease, { ...clear, outcome: 'findings', stopReason: 'awaiting_settlement' });
      const origin = { findingId: 'first-finding', runId: 'first-run' };
      const s = { by: 'alice', decision: 'overturned' as const, note: 'banner', at: 99, origin };
      await store.settle(f0.id, s);
      await store.settle(f1.id, { by: 'bob', decision: 'upheld', note: null, at: 100 });
      const got = await store.listFindings(lease.runId);
      expect(got.find((f) => f.id === f0.id)).toMatchObject({ content: 'sha256:lines-2-2', settlement: s });
      const plain = got.find((f) => f.id === f1.id);
      expect(plain?.content).toBeNull();
      expect(plain?.settlement).toEqual({ by: 'bob', decision: 'upheld', note: null, at: 100 });
      expect(plain?.settlement?.origin).toBeUndefined();
    });

    it("keeps a finding's reproduction count under repeat sampling, and none when one sample was drawn", async () => {
      const lease = await running();
      const demoted = {
        ...finding(lease.runId, 'ck', 0),
        severity: 'MINOR' as const,
        gate: {
          kind: 'demoted' as const,
          rule: 'unreproduced' as const,
          from: 'MODERATE' as const,
          seen: 1,
          of: 3,
        },
        reproduction: { seen: 1, of: 3 },
      };
      const kept = { ...finding(lease.runId, 'ck', 1), reproduction: { seen: 2, of: 3 } };
      const single = finding(lease.runId, 'ck', 2);
      await store.completeStage(lease, {
        round: 1,
        stage: 'review',
        result: reviewResult(),
        findings: [demoted, kept, single],
      });
      const got = await store.listFindings(lease.runId);
      expect(got.find((f) => f.id === demoted.id)).toMatchObject({
        gate: demoted.gate,
        reproduction: { seen: 1, of: 3 },
      });
      expect(got.find((f) => f.id === kept.id)).toMatchObject({
        gate: { kind: 'kept' },
        reproduction: { seen: 2, of: 3 },
      });
      expect(got.find((f) => f.id === kept.id)?.gate).toEqual({ kind: 'kept' });
      expect(got.find((f) => f.id === single.id)?.reproduction).toBeUndefined();
    });

    it("puts a verdict's cost on its run in the same transaction, once (invariant 12)", async () => {
      const lease = await running();
      await store.recordVerdict(lease, { ...verdict(lease.runId, 'ck-paid'), costUsd: 6 });
      // A duplicate delivery records nothing, and charges nothing.
      await store.recordVerdict(lease, { ...verdict(lease.runId, 'ck-paid'), costUsd: 6 });
      await store.recordVerdict(lease, { ...verdict(lease.runId, 'ck-paid-2'), costUsd: 0.25 });
      expect((await store.getRun(lease.runId))!.costUsd).toBeCloseTo(6.25);
      // Ended without a stage completion (a budget abort mid review): the money is still there.
      const ended = await store.finishRun(lease, {
        status: 'aborted',
        outcome: null,
        stopReason: null,
        reason: 'budget_cost',
        detail: null,
      });
      expect(ended.costUsd).toBeCloseTo(6.25);
    });

    it('keeps the cost of a paid reply that gave no verdict on its run (invariant 12)', async () => {
      const lease = await running();
      const a = { round: 1, stage: 'review' as const, role: 'reviewer' as const, reviewer: 'r' };
      await store.beginAttempt(lease, { ...a, callKey: 'ck-rejected', attemptNo: 1 });
      // The reply parsed and was paid for, then named a line the file does not have.
      await store.endAttempt(lease, 'ck-rejected', 1, 'malformed', 'no line 99', 2.5);
      await store.beginAttempt(lease, { ...a, callKey: 'ck-429', attemptNo: 1 });
      await store.endAttempt(lease, 'ck-429', 1, 'rate_limited', '429');
      expect((await store.getRun(lease.runId))!.costUsd).toBeCloseTo(2.5);
      const ended = await store.finishRun(lease, {
        status: 'failed',
        outcome: null,
        stopReason: null,
        reason: 'malformed',
        detail: null,
      });
      expect(ended.costUsd).toBeCloseTo(2.5);
    });

    it('finds runs and findings by unique prefix; an ambiguous prefix finds nothing', async () => {
      const base = uid('pfx-');
      const l1 = await running({ runId: `${base}-aa1` });
      await running({ runId: `${base}-ab2` });
      await running({ runId: `${base}-aa` });
      expect((await store.findRun(`${base}-ab`))?.id).toBe(`${base}-ab2`);
      expect((await store.findRun(`${base}-aa`))?.id).toBe(`${base}-aa`); // exact beats prefix
      expect(await store.findRun(`${base}-a`)).toBeNull();
      expect(await store.findRun('')).toBeNull();
      expect(await store.findRun(`${base}-zz`)).toBeNull();
      await store.completeStage(l1, {
        round: 1,
        stage: 'review',
        result: reviewResult(),
        findings: [finding(l1.runId, 'ck', 0, `${base}-f-x1`), finding(l1.runId, 'ck', 1, `${base}-f-x2`)],
      });
      expect((await store.getFinding(`${base}-f-x2`))?.index).toBe(1);
      expect(await store.getFinding(`${base}-f-x`)).toBeNull();
    });

    it('lists verdicts across every run of a change, and runs by filter', async () => {
      const change = uid('chg-');
      const l1 = await running({ changeKey: change });
      await store.recordVerdict(l1, verdict(l1.runId, uid('ck-')));
      await store.finishRun(l1, failed);
      const l2 = await running({ changeKey: change });
      await store.recordVerdict(l2, verdict(l2.runId, uid('ck-')));
      const other = await running();
      await store.recordVerdict(other, verdict(other.runId, uid('ck-')));
      const vs = await store.listVerdictsForChange(change);
      expect(vs.map((v) => v.runId)).toEqual([l1.runId, l2.runId]);
      expect((await store.listRuns({ changeKey: change })).map((r) => r.id)).toEqual([l2.runId, l1.runId]);
      expect((await store.listRuns({ changeKey: change, status: ['failed'] })).map((r) => r.id)).toEqual([
        l1.runId,
      ]);
      expect(await store.listRuns({ limit: 1 })).toHaveLength(1);
      await store.setRecordPath(l1.runId, '.revloop/records/x.json');
      expect((await store.getRun(l1.runId))!.recordPath).toBe('.revloop/records/x.json');
      await expect(store.setRecordPath('nope', 'x')).rejects.toMatchObject({ code: 'unknown_run' });
    });

    it('answers a reuse key with the first verdict of the same repository, never with another repository’s', async () => {
      const key = uid('reuse-');
      const mine = uid('git@example.invalid:acme/mine-');
      const theirs = uid('git@example.invalid:acme/theirs-');
      expect(await store.reusableVerdict(mine, key)).toBeNull();
      // Another tenant's verdict under the very same key is never an answer.
      const t = await running({ repo: theirs });
      await store.recordVerdict(t, { ...verdict(t.runId, uid('ck-')), reuseKey: key });
      expect(await store.reusableVerdict(mine, key)).toBeNull();
      const first = await running({ repo: mine });
      const original = { ...verdict(first.runId, uid('ck-')), reuseKey: key };
      await store.recordVerdict(first, original);
      // A verdict without a reuse key (an agent that reads more than its prompt) is never found.
      await store.recordVerdict(first, verdict(first.runId, uid('ck-')));
      const second = await running({ repo: mine });
      const reusedFrom = {
        callKey: original.callKey,
        runId: first.runId,
        revision: original.revision,
        confined: true,
      };
      const reused = { ...verdict(second.runId, uid('ck-')), costUsd: 0, reuseKey: key, reusedFrom };
      const { verdict: row } = await store.recordVerdict(second, reused);
      expect(row).toMatchObject({ reuseKey: key, reusedFrom, costUsd: 0 });
      expect((await store.listVerdicts(second.runId))[0]).toMatchObject({ reusedFrom });
      const found = await store.reusableVerdict(mine, key);
      expect(found).toMatchObject({ callKey: original.callKey, runId: first.runId, reuseKey: key });
      expect(found?.reusedFrom).toBeUndefined();
      expect(await store.reusableVerdict(theirs, key)).toMatchObject({ runId: t.runId });
      expect(await store.reusableVerdict(mine, uid('reuse-'))).toBeNull();
    });

    describe("what another machine needs of a run: fix bundles and the record's envelope", () => {
      it('keeps a fix bundle under the lease, the first one per commit, and fences a stale owner out', async () => {
        const lease = await running();
        const bytes = Buffer.from([0, 1, 2, 255, 10, 0]);
        await store.putFixBundle(lease, 'c1', bytes);
        await store.putFixBundle(lease, 'c1', Buffer.from('later'));
        expect(await store.getFixBundle(lease.runId, 'c1')).toEqual(bytes);
        expect(await store.getFixBundle(lease.runId, 'c2')).toBeNull();
        const next = (await store.acquireLease(lease.runId, owner('b'), 60_000, lease.token))!;
        await expect(store.putFixBundle(lease, 'c2', bytes)).rejects.toMatchObject({ code: 'fenced_out' });
        expect(await store.getFixBundle(lease.runId, 'c2')).toBeNull();
        await store.finishRun(next, clear);
        await expect(store.putFixBundle(next, 'c3', bytes)).rejects.toMatchObject({ code: 'fenced_out' });
      });

      it("keeps a completed run's first envelope, and lists the completed runs of a repository without one", async () => {
        const repo = uid('repo-');
        const a = await running({ repo });
        const b = await running({ repo });
        const open = await running({ repo });
        await store.finishRun(a, clear);
        await store.finishRun(b, clear);
        await store.finishRun(await running(), clear);
        expect((await store.runsWithoutRecord(repo, 10)).map((r) => r.id)).toEqual([a.runId, b.runId]);
        expect((await store.runsWithoutRecord(repo, 1)).map((r) => r.id)).toEqual([a.runId]);
        expect(await store.putRecordEnvelope(a.runId, '{"first":1}')).toBe('{"first":1}');
        expect(await store.putRecordEnvelope(a.runId, '{"second":2}')).toBe('{"first":1}');
        expect(await store.getRecordEnvelope(a.runId)).toBe('{"first":1}');
        expect(await store.getRecordEnvelope(b.runId)).toBeNull();
        expect((await store.runsWithoutRecord(repo, 10)).map((r) => r.id)).toEqual([b.runId]);
        await expect(store.putRecordEnvelope('nope', '{}')).rejects.toMatchObject({ code: 'unknown_run' });
        expect(open.runId).not.toBe(b.runId);
      });
    });

    describe('the store boundary parses stage results and replies (issue 16)', () => {
      it.skipIf(!tamper)(
        'a stored stage result that fails its schema is a named error: run, stage, field',
        async () => {
          const lease = await running();
          await store.completeStage(lease, { round: 1, stage: 'fix', result: fixResult({ commit: 'c2' }) });
          expect((await store.listStages(lease.runId))[0]!.result).toEqual(fixResult({ commit: 'c2' }));
          await tamper!(store, 'stages', lease.runId, JSON.stringify({ ...fixResult(), diffDigest: 7 }));
          const err = await store.listStages(lease.runId).catch((e: unknown) => e);
          expect(err).toMatchObject({
            name: 'StoredRowError',
            code: 'stored_row_invalid',
            runId: lease.runId,
            field: '$.diffDigest',
          });
          expect((err as Error).message).toContain(`run ${lease.runId}`);
          expect((err as Error).message).toContain('fix result of round 1');
          expect((err as Error).message).toContain('$.diffDigest');
        },
      );

      it.skipIf(!tamper)(
        "a stored reply that fails its role's schema is a named error: run, call, field",
        async () => {
          const lease = await running();
          await store.beginAttempt(lease, {
            callKey: 'ck-t',
            attemptNo: 1,
            round: 1,
            stage: 'review',
            role: 'reviewer',
            reviewer: 'r',
          });
          await store.recordVerdict(lease, verdict(lease.runId, 'ck-t'), 1);
          await tamper!(store, 'verdicts', lease.runId, JSON.stringify({ verdict: 'maybe', findings: [] }));
          const err = await store.listVerdicts(lease.runId).catch((e: unknown) => e);
          expect(err).toMatchObject({ name: 'StoredRowError', runId: lease.runId, field: '$.verdict' });
          expect((err as Error).message).toContain('reviewer reply of the review verdict ck-t');
        },
      );
    });
  });
}

function verdict(runId: string, callKey: string) {
  return {
    callKey,
    runId,
    round: 1,
    stage: 'review' as const,
    role: 'reviewer' as const,
    reviewer: 'correctness',
    revision: 'h'.repeat(40),
    promptDigest: 'sha256:prompt',
    modelId: 'm-1',
    reply: { verdict: 'pass', findings: [] },
    costUsd: 0.01,
  };
}

/** A run nobody holds, ended as a worker ends one: it takes the lease, then ends the run under it. */
async function endUnheld(store: Store, runId: string, end: RunEnd): Promise<void> {
  const lease = await store.acquireLease(runId, owner(uid('ender-')), 60_000);
  if (!lease) throw new Error(`run ${runId} could not be leased`);
  await store.finishRun(lease, end);
}

/** One stage of a run as the list holds it, or undefined. */
async function stageOf(store: Store, runId: string, round: number, stage: string) {
  return (await store.listStages(runId)).find((s) => s.round === round && s.stage === stage);
}
