/**
 * Driver bugs the deterministic simulation (test/dst) found, each replayed
 * here with real parts: real git, a real SQLite ledger, real subprocess
 * agents, a "crash" being a crash point that throws (the ledger is then as a
 * SIGKILL there leaves it) and an owner whose pid has exited (taken over at once).
 *
 * - invariant 7: a call whose last attempt ended in a class never retried, or
 *   used its last retry, is not made again by the owner that resumes the run;
 * - invariant 12: completing a stage never lowers the run's recorded spend;
 * - invariant 7's bookkeeping: a run that ends leaves no attempt `started`
 *   (a context that cannot be built, a store write whose answer was lost);
 * - no unhandled rejection: the fix stage's read of the user's tree is observed
 *   even when the fixer's verdict was recorded by an earlier owner.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { resumeRun } from '../../src/loop/operations.js';
import type { Store } from '../../src/ports/store.js';
import { StoreUnavailableError } from '../../src/store/errors.js';
import {
  Crash,
  crashAt,
  deadOwner,
  dropFeatureHead,
  type LoopFixture,
  makeLoopFixture,
} from '../crash/loop-fixture.js';
import { withMethod } from '../helpers/with-method.js';
import {
  baseConfig,
  type InProcess,
  inProcess,
  makeReviewRepo,
  type Plan,
  pass,
  type ReviewRepo,
  review,
} from './helpers.js';

let repo: ReviewRepo | undefined;
let fx: LoopFixture | undefined;
const opened: InProcess[] = [];
afterEach(async () => {
  for (const p of opened.splice(0)) await p.close().catch(() => undefined);
  await repo?.cleanup();
  await fx?.cleanup();
  repo = undefined;
  fx = undefined;
});

/** A controller process on the repo's ledger; `dieAt` makes it throw there, holding the run as a dead pid. */
async function controller(dir: string, dieAt?: string, store?: (s: Store) => Store): Promise<InProcess> {
  const p = await inProcess(dir, {
    tweak: (d) => ({
      ...d,
      ...(dieAt ? { owner: deadOwner(), crashPoint: crashAt(dieAt) } : {}),
      ...(store ? { store: store(d.store) } : {}),
    }),
  });
  opened.push(p);
  return p;
}

async function reviewRepo(plan: Plan, extra: Record<string, unknown> = {}): Promise<ReviewRepo> {
  repo = await makeReviewRepo({
    config: (a) => baseConfig(a, { retry: { attempts: 2, baseDelayMs: 1, maxDelayMs: 5 }, ...extra }),
  });
  repo.plan(plan);
  return repo;
}

const attemptsOf = async (store: Store, runId: string) =>
  (await store.listAttempts(runId)).map((a) => [a.reviewer, a.attemptNo, a.class]);

describe('invariant 7: what an attempt ended as stands across a takeover', () => {
  test.each([
    ['malformed (never retried)', { stdout: 'Looks fine to me.' }, 'malformed', 1],
    ['unavailable twice under a cap of 2 (retries used)', { exit: 75 }, 'retries_exhausted', 2],
  ])('a reviewer call that ended %s is not made again by the next owner', async (_, step, reason, made) => {
    const r = await reviewRepo({ reviewer: [step] });
    // The owner records the call's end, then dies before it can end the run.
    const first = await controller(r.dir, 'before:finish');
    await expect(review(first, r.dir)).rejects.toBeInstanceOf(Crash);
    const [run] = await first.store.listRuns();
    if (!run) throw new Error('no run admitted');
    expect(run.status).toBe('running');
    expect(r.counts().reviewer).toBe(made);

    const next = await controller(r.dir);
    const res = await resumeRun(next.deps, run.id);
    expect(res.run).toMatchObject({ status: 'failed', reason, outcome: null });
    expect(r.counts().reviewer).toBe(made);
    const cls = reason === 'malformed' ? 'malformed' : 'unavailable';
    expect(await attemptsOf(next.store, run.id)).toEqual(
      Array.from({ length: made }, (_, i) => ['correctness', i + 1, cls]),
    );
  });
});

test('invariant 12: a stage completing after a paid-for rejection keeps that spend on the run', async () => {
  const r = await reviewRepo({ reviewer: [{ reply: { ...pass, usage: { costUsd: 0.1 } } }] });
  const first = await controller(r.dir, 'before:review');
  await expect(review(first, r.dir)).rejects.toBeInstanceOf(Crash);
  const [run] = await first.store.listRuns();
  if (!run) throw new Error('no run admitted');
  // An earlier owner paid for a reply it rejected (the store adds it to the run, not to a verdict).
  const earlier = await first.store.acquireLease(run.id, deadOwner(), 60_000, run.fencingToken);
  if (!earlier) throw new Error('no lease');
  const call = { callKey: 'an-earlier-call', attemptNo: 1, round: 1, stage: 'review' as const };
  await first.store.beginAttempt(earlier, { ...call, role: 'reviewer', reviewer: 'correctness' });
  await first.store.endAttempt(earlier, call.callKey, 1, 'malformed', 'paid for, rejected', 0.25);
  expect((await first.store.getRun(run.id))?.costUsd).toBeCloseTo(0.25);

  const next = await controller(r.dir);
  const res = await resumeRun(next.deps, run.id);
  expect(res.run).toMatchObject({ status: 'completed', outcome: 'clear' });
  expect(res.run.costUsd).toBeCloseTo(0.35);
});

describe('a run that ends leaves no attempt started', () => {
  test('a resumed run whose head commit is gone (ended before its context was built)', async () => {
    fx = await makeLoopFixture();
    const f = fx;
    // call:review fires once the reviewer's attempt row is written, before the reviewer runs.
    const { store: s0, deps: d0 } = await f.open({ owner: deadOwner(), crashPoint: crashAt('call:review') });
    await expect(f.review(d0)).rejects.toBeInstanceOf(Crash);
    const [run] = await s0.listRuns();
    if (!run) throw new Error('no run admitted');
    expect((await s0.listAttempts(run.id)).map((a) => a.class)).toContain('started');
    dropFeatureHead(f.dir);

    const { store, deps } = await f.open();
    const res = await f.resume(deps, run.id);
    expect(res.run).toMatchObject({ status: 'unknown', reason: 'unresumable' });
    const classes = (await store.listAttempts(run.id)).map((a) => a.class);
    expect(classes.length).toBeGreaterThan(0);
    expect(classes).not.toContain('started');
  });

  test("a beginAttempt that landed but whose answer was lost, beside a reviewer's failed call", async () => {
    repo = await makeReviewRepo({
      config: (agent) =>
        baseConfig(agent, { reviewers: ['first', 'second'].map((name) => ({ name, ...agent })) }),
    });
    repo.plan({ 'reviewer:first': [{ stdout: 'Looks fine to me.' }], 'reviewer:second': [{ reply: pass }] });
    const lostAck = (s: Store): Store =>
      withMethod(s, 'beginAttempt', (begin) => async (...args) => {
        await begin(...args);
        if (args[1].reviewer === 'second')
          throw new StoreUnavailableError('beginAttempt', 'connection reset');
      });
    const p = await controller(repo.dir, undefined, lostAck);
    const res = await review(p, repo.dir);
    expect(res.run).toMatchObject({ status: 'failed', reason: 'malformed' });
    const attempts = await attemptsOf(p.store, res.run.id);
    expect(attempts).toContainEqual(['second', 1, 'unknown']);
    expect(attempts.map((x) => x[2])).not.toContain('started');
  });
});

test("the fix stage's read of the user's tree never rejects unobserved", async () => {
  fx = await makeLoopFixture();
  const f = fx;
  const { store: s0, deps: d0 } = await f.open({
    owner: deadOwner(),
    crashPoint: crashAt('before-complete:fix'),
  });
  await expect(f.review(d0)).rejects.toBeInstanceOf(Crash);
  const [run] = await s0.listRuns();
  if (!run) throw new Error('no run admitted');

  // The next owner finds the fixer's verdict recorded (no attempt awaits the read) and cannot
  // read the user's tree.
  const { deps } = await f.open();
  const git0 = deps.git;
  const statusFails = new Proxy(git0, {
    get(t, k) {
      const v = Reflect.get(t, k, t);
      if (k !== 'status') return typeof v === 'function' ? v.bind(t) : v;
      return async (dir: string) => {
        if (dir === f.dir) throw new Error('fatal: unable to read the index (simulated)');
        return t.status(dir);
      };
    },
  });
  const unhandled: unknown[] = [];
  const onUnhandled = (err: unknown) => void unhandled.push(err);
  process.on('unhandledRejection', onUnhandled);
  try {
    const res = await f.resume({ ...deps, git: statusFails }, run.id);
    expect(res.run).toMatchObject({ status: 'completed', outcome: 'clear' });
    for (let i = 0; i < 20; i++) await new Promise<void>((done) => setImmediate(done));
  } finally {
    process.off('unhandledRejection', onUnhandled);
  }
  expect(unhandled.map(String)).toEqual([]);
});
