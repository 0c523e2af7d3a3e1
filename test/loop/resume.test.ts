/**
 * Resume (project issue 5, requirement 3; invariant 5): a crashed run is taken
 * over at once when its owner was a process on this host that no longer
 * exists, otherwise when its lease expires; completed stages are skipped and
 * recorded verdicts reused, so resume costs at most the interrupted call; an
 * interrupted attempt is recorded `unknown` and replayed under its call key; a
 * run whose head commit is gone ends `unknown` / `unresumable`.
 */
import { spawn } from 'node:child_process';
import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { createGit } from '../../src/git/index.js';
import { sweepPool } from '../../src/loop/checkout/pool/gc.js';
import { poolDir } from '../../src/loop/checkout/pool/location.js';
import { RunBusyError } from '../../src/loop/errors.js';
import { verifyRecordFile } from '../../src/record/verify.js';
import {
  Crash,
  crashAroundVerdict,
  crashAt,
  deadOwner,
  dropFeatureHead,
  type LoopFixture,
  makeLoopFixture,
} from '../crash/loop-fixture.js';
import { git } from '../crash/template.mjs';

let fx: LoopFixture | undefined;
afterEach(async () => {
  await fx?.cleanup();
  fx = undefined;
});

/** Runs the loop with a crash point, expects the crash, and closes that "process". */
async function crashRun(f: LoopFixture, at: string, nth = 1) {
  const { store, deps } = await f.open({ owner: deadOwner(), crashPoint: crashAt(at, nth) });
  await expect(f.review(deps)).rejects.toBeInstanceOf(Crash);
  const [run] = await store.listRuns();
  const stages = await store.listStages(run?.id ?? '');
  await store.close();
  if (!run) throw new Error('no run admitted');
  return { run, stages };
}

const keyed = (f: LoopFixture) => f.invocations().filter((i) => i.callKey !== '-');
const checkRuns = (f: LoopFixture) => f.invocations().filter((i) => i.role === 'check').length;

describe('resume after a crash at each before-complete boundary', () => {
  // One fixed bug: round 0 checks, round 1 review/refute/decide/fix/checks, round 2 review/refute/decide.
  test.each(['review', 'refute', 'decide', 'fix', 'checks'])(
    'before-complete:%s: completed stages are skipped and no recorded call is made again',
    async (stage) => {
      fx = await makeLoopFixture();
      const { run, stages: before } = await crashRun(fx, `before-complete:${stage}`);
      expect(before.some((s) => s.stage === stage && s.round === (stage === 'checks' ? 0 : 1))).toBe(false);
      const callsBefore = keyed(fx).length;
      const checksBefore = checkRuns(fx);

      // `review` on the same revision takes over at once: the owner's pid is dead on this host.
      const { store, deps } = await fx.open();
      const t0 = Date.now();
      const res = await fx.review(deps);
      expect(res.admitted).toBe('existing');
      expect(res.run.id).toBe(run.id);
      expect(Date.now() - t0).toBeLessThan(deps.leaseTtlMs);
      expect(res.run.status).toBe('completed');
      expect(res.run.outcome).toBe('clear');

      // Every call made before the crash had its verdict recorded: none is made again.
      const calls = keyed(fx);
      const keys = calls.map((c) => c.callKey);
      expect(new Set(keys).size).toBe(keys.length);
      expect(calls.slice(0, callsBefore).every((c) => !keys.slice(callsBefore).includes(c.callKey))).toBe(
        true,
      );
      // Checks have no verdicts: only an interrupted checks stage runs its checks again.
      // (An uncrashed run checks three times: the baseline, the base, since the baseline
      // fails, and after the fix. Round 0's checks stage, interrupted, runs both again.)
      expect(checksBefore).toBeGreaterThan(0);
      expect(checkRuns(fx)).toBe(3 + (stage === 'checks' ? 2 : 0));

      // Stages completed before the crash kept their completion rows untouched.
      const after = await store.listStages(run.id);
      for (const s of before) {
        const same = after.find((a) => a.round === s.round && a.stage === s.stage);
        expect(same?.completedAt).toBe(s.completedAt);
      }
      const attempts = await store.listAttempts(run.id);
      expect(attempts.every((a) => a.class === 'ok')).toBe(true);
    },
  );
});

describe("a crash before the fix's move of the run's ref landed", () => {
  // The ref moves beside the next round's calls, so a kill can leave the ledger's head (the
  // fix commit, held by the dead owner's worktree) ahead of the ref: the finishing owner moves it.
  test.each([
    ['behind, at the admitted head', 'rewind'],
    ['not yet made', 'delete'],
  ])('the ref %s: resume ends the run with the ref on its head', async (_, how) => {
    fx = await makeLoopFixture();
    const { run } = await crashRun(fx, 'before-complete:checks', 2); // round 1's, after the fix
    const ref = `refs/revloop/runs/${run.id}`;
    const { store, deps } = await fx.open();
    const fixed = (await store.getRun(run.id))?.head ?? '';
    expect(fixed).not.toBe(fx.head);
    if (how === 'rewind') git(fx.dir, ['update-ref', ref, fx.head]);
    else git(fx.dir, ['update-ref', '-d', ref]);
    // Nothing but the dead owner's worktree holds the fix commit now.
    expect(git(fx.dir, ['for-each-ref', '--contains', fixed, '--format=%(refname)'])).toBe('');

    const res = await fx.resume(deps, run.id.slice(0, 10));
    expect(res.run.status).toBe('completed');
    expect(res.run.outcome).toBe('clear');
    expect(res.run.head).toBe(fixed);
    expect(git(fx.dir, ['rev-parse', ref])).toBe(fixed);
    // With the run's checkouts gone (its own at its end; the pool's lane, which stays for the
    // next run, by `revloop gc`'s sweep), the ref alone keeps the fix through a gc.
    sweepPool(join(fx.dir, '.git'), poolDir(join(fx.dir, '.git'), undefined, fx.dir, fx.env));
    expect(
      git(fx.dir, ['worktree', 'list', '--porcelain'])
        .split('\n')
        .filter((l) => l.startsWith('worktree ')),
    ).toHaveLength(1);
    git(fx.dir, ['gc', '--quiet', '--prune=now']);
    expect(git(fx.dir, ['cat-file', '-t', fixed])).toBe('commit');
  });
});

test('a ref move git refuses stops the run as an error, not an outcome; resumed once git can, it ends on its ref', async () => {
  fx = await makeLoopFixture();
  // A file where the runs' ref directory should be: every update-ref under it fails.
  const runsDir = join(fx.dir, '.git', 'refs', 'revloop', 'runs');
  mkdirSync(join(runsDir, '..'), { recursive: true });
  writeFileSync(runsDir, 'in the way\n');
  const { store, deps } = await fx.open({ owner: deadOwner() });
  await expect(fx.review(deps)).rejects.toThrow(/update-ref failed .*refs\/revloop\/runs\//);
  const [run] = await store.listRuns();
  expect(run?.status).toBe('running');
  expect(run?.outcome ?? null).toBeNull();
  await store.close();

  rmSync(runsDir);
  const again = await fx.open();
  const res = await fx.resume(again.deps, run?.id.slice(0, 10) ?? '');
  expect(res.run).toMatchObject({ status: 'completed', outcome: 'clear' });
  expect(git(fx.dir, ['rev-parse', `refs/revloop/runs/${res.run.id}`])).toBe(res.run.head);
});

test('an attempt left `started` is recorded `unknown` and the call is re-made under the same call key', async () => {
  fx = await makeLoopFixture();
  // call:fix fires after the fixer's attempt row is written, before the fixer runs.
  const { run } = await crashRun(fx, 'call:fix');
  const { store, deps } = await fx.open();
  const pending = (await store.listAttempts(run.id)).filter((a) => a.class === 'started');
  expect(pending).toHaveLength(1);
  const key = pending[0]?.callKey ?? '';
  expect(keyed(fx).some((c) => c.callKey === key)).toBe(false);

  const res = await fx.resume(deps, run.id.slice(0, 10));
  expect(res.run.status).toBe('completed');
  expect(res.run.outcome).toBe('clear');
  const attempts = (await store.listAttempts(run.id)).filter((a) => a.callKey === key);
  expect(attempts.map((a) => [a.attemptNo, a.class])).toEqual([
    [1, 'unknown'],
    [2, 'ok'],
  ]);
  expect(keyed(fx).filter((c) => c.callKey === key)).toHaveLength(1);
  expect((await store.listVerdicts(run.id)).filter((v) => v.callKey === key)).toHaveLength(1);
  expect(run.fencingToken).toBeLessThan(res.run.fencingToken);
});

describe('a crash next to a verdict', () => {
  test.each(['before', 'after'] as const)(
    'just %s the verdict is recorded: one ok attempt per call key, and a recorded verdict is never asked for again',
    async (when) => {
      fx = await makeLoopFixture();
      const fired: { callKey?: string } = {};
      const { store: s0, deps: d0 } = await fx.open({ owner: deadOwner() }, crashAroundVerdict(when, fired));
      await expect(fx.review(d0)).rejects.toBeInstanceOf(Crash);
      const [run] = await s0.listRuns();
      await s0.close();
      if (!run) throw new Error('no run');
      const first = fired.callKey ?? '';
      expect(keyed(fx).some((c) => c.callKey === first)).toBe(true);

      const { store, deps } = await fx.open();
      const res = await fx.resume(deps, run.id);
      expect(res.run.outcome).toBe('clear');
      const attempts = await store.listAttempts(run.id);
      for (const key of new Set(attempts.map((a) => a.callKey)))
        expect(attempts.filter((a) => a.callKey === key && a.class === 'ok').length).toBeLessThanOrEqual(1);
      const calls = keyed(fx).filter((c) => c.callKey === first);
      // Recorded before the crash: reused. Not recorded: asked again once, under the same key.
      expect(calls).toHaveLength(when === 'after' ? 1 : 2);
      expect((await store.listVerdicts(run.id)).filter((v) => v.callKey === first)).toHaveLength(1);
    },
  );
});

describe('no file is a completion signal (invariant 5)', () => {
  test('a record file planted for a crashed run does not end it; resume finishes the run and rewrites the record', async () => {
    fx = await makeLoopFixture();
    const { run } = await crashRun(fx, 'before:decide', 2);
    const planted = join(fx.dir, '.revloop', 'records', `${run.id}.json`);
    mkdirSync(join(fx.dir, '.revloop', 'records'), { recursive: true });
    writeFileSync(planted, '{"forged":true}\n');

    const { deps } = await fx.open();
    const res = await fx.resume(deps, run.id);
    expect(res.run.status).toBe('completed');
    expect(res.recordPath).toBe(planted);
    expect(readFileSync(planted, 'utf8')).not.toContain('forged');
    const co = join(fx.dir, '..', 'checkout');
    git(fx.dir, ['worktree', 'add', '--detach', '--quiet', co, res.run.head]);
    const v = await verifyRecordFile(planted, {
      git: createGit(),
      repo: co,
      keys: [join(fx.dir, '.revloop', 'keys', 'signing.pub')],
      allowFindings: false,
    });
    expect(v).toMatchObject({ ok: true, code: 'ok' });
  });

  test('a signing key pair cut in half by a crash (the .pub never renamed into place) is completed from the .key', async () => {
    fx = await makeLoopFixture();
    const keys = join(fx.dir, '.revloop', 'keys');
    mkdirSync(keys, { recursive: true });
    const { privateKey } = generateKeyPairSync('ed25519');
    writeFileSync(join(keys, 'signing.key'), privateKey.export({ type: 'pkcs8', format: 'pem' }));
    const { deps } = await fx.open();
    const res = await fx.review(deps);
    expect(res.run.outcome).toBe('clear');
    const pub = readFileSync(join(keys, 'signing.pub'), 'utf8');
    expect(pub).toBe(createPublicKey(privateKey).export({ type: 'spki', format: 'pem' }));
    const co = join(fx.dir, '..', 'checkout');
    git(fx.dir, ['worktree', 'add', '--detach', '--quiet', co, res.run.head]);
    const v = await verifyRecordFile(res.recordPath ?? '', {
      git: createGit(),
      repo: co,
      keys: [join(keys, 'signing.pub')],
      allowFindings: false,
    });
    expect(v).toMatchObject({ ok: true });
  });

  test('a run killed after it finished but before its record was written gets the record on resume', async () => {
    fx = await makeLoopFixture();
    const { run } = await crashRun(fx, 'after:finish');
    const { store, deps } = await fx.open();
    const ended = await store.getRun(run.id);
    expect(ended?.status).toBe('completed');
    expect(ended?.recordPath).toBeNull();
    const calls = fx.invocations().length;
    const res = await fx.resume(deps, run.id);
    expect(res.recordPath).not.toBeNull();
    expect(existsSync(res.recordPath ?? '')).toBe(true);
    expect((await store.getRun(run.id))?.recordPath).toBe(res.recordPath);
    expect(fx.invocations()).toHaveLength(calls);
  });
});

describe("a crash that leaves the run's private worktree broken", () => {
  const worktreeOf = (f: LoopFixture) =>
    git(f.dir, ['worktree', 'list', '--porcelain'])
      .split('\n')
      .filter((l) => l.startsWith('worktree ') && l !== `worktree ${f.dir}`)
      .map((l) => l.slice('worktree '.length))[0] ?? '';

  test.each([
    ['a stale index.lock (git killed with the controller mid-command)', 'lock'],
    ['a checkout whose .git link is empty', 'unlinked'],
    ['a worktree add cut short (still locked "initializing", no .git link)', 'initializing'],
  ])('%s: resume still finishes the run', async (_what, damage) => {
    fx = await makeLoopFixture();
    const { run } = await crashRun(fx, 'call:fix');
    const wt = worktreeOf(fx);
    expect(existsSync(wt)).toBe(true);
    const admin = git(wt, ['rev-parse', '--absolute-git-dir']);
    if (damage === 'lock') writeFileSync(join(admin, 'index.lock'), '');
    else writeFileSync(join(wt, '.git'), '');
    if (damage === 'initializing') writeFileSync(join(admin, 'locked'), 'initializing');
    const { deps } = await fx.open();
    const res = await fx.resume(deps, run.id);
    expect([res.run.status, res.run.outcome]).toEqual(['completed', 'clear']);
  });
});

test("a lock left on the run's ref (its owner's update-ref killed with it): resume moves the ref and finishes", async () => {
  fx = await makeLoopFixture();
  const { run } = await crashRun(fx, 'before:finish');
  // What a SIGKILL of the owner's process group leaves when its update-ref held the lock.
  const ref = `refs/revloop/runs/${run.id}`;
  const lock = join(git(fx.dir, ['rev-parse', '--path-format=absolute', '--git-common-dir']), `${ref}.lock`);
  mkdirSync(join(lock, '..'), { recursive: true });
  writeFileSync(lock, '');
  const { deps } = await fx.open();
  const res = await fx.resume(deps, run.id);
  expect([res.run.status, res.run.outcome]).toEqual(['completed', 'clear']);
  expect(res.run.head).not.toBe(fx.head);
  expect(git(fx.dir, ['rev-parse', ref])).toBe(res.run.head);
  expect(existsSync(lock)).toBe(false);
});

test('markInterruptedAttempts marks only the started attempts of the run it holds', async () => {
  fx = await makeLoopFixture();
  const { run } = await crashRun(fx, 'call:review', 2);
  const { store, deps } = await fx.open();
  const lease = await store.acquireLease(run.id, deps.owner, 60_000, run.fencingToken);
  if (!lease) throw new Error('no lease');
  expect(await store.markInterruptedAttempts(lease)).toBe(1);
  expect(await store.markInterruptedAttempts(lease)).toBe(0);
  const classes = (await store.listAttempts(run.id)).map((a) => a.class).sort();
  expect(classes).toEqual(['ok', 'unknown']);
  await store.releaseLease(lease);
});

test('a run whose head commit no longer exists ends unknown / unresumable', async () => {
  fx = await makeLoopFixture();
  const { run } = await crashRun(fx, 'before:review');
  const f = fx;
  // The branch is force-deleted and garbage-collected; the run's worktree (which pins HEAD) is gone too.
  dropFeatureHead(f.dir);
  expect(() => git(f.dir, ['cat-file', '-e', `${f.head}^{commit}`])).toThrow();

  const { store, deps } = await f.open();
  const res = await f.resume(deps, run.id);
  expect(res.run.status).toBe('unknown');
  expect(res.run.reason).toBe('unresumable');
  expect(res.run.outcome).toBeNull();
  expect(res.run.detail).toContain(f.head.slice(0, 12));
  expect((await store.getRun(run.id))?.status).toBe('unknown');
});

describe('an owner that is still there', () => {
  test('review on the same key waits while the owner pid is alive, and does not take over', async () => {
    fx = await makeLoopFixture();
    const alive = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    try {
      const pid = alive.pid ?? 0;
      const owner = { id: `${hostname()}:${pid}:live`, host: hostname(), pid };
      const { run } = await crashRun(fx, 'before:refute');
      // crashRun's process used a dead owner; hand the lease to the live one as a takeover would.
      const { store: s1 } = await fx.open({ owner });
      const held = await s1.acquireLease(run.id, owner, 60_000, run.fencingToken);
      expect(held).not.toBeNull();
      await s1.close();

      const stop = new AbortController();
      const { store, deps } = await fx.open({ signal: stop.signal });
      setTimeout(() => stop.abort(), 1200);
      const res = await fx.review(deps);
      expect(res.detached).toBe('signal');
      const now = await store.getRun(run.id);
      expect(now?.status).toBe('running');
      expect(now?.leaseOwner?.pid).toBe(pid);
      expect(now?.fencingToken).toBe(held?.token);
      await expect(fx.resume(deps, run.id)).rejects.toBeInstanceOf(RunBusyError);
    } finally {
      alive.kill('SIGKILL');
    }
  });

  test('an owner on another host is taken over only once its lease expired, with a new fencing token', async () => {
    fx = await makeLoopFixture();
    const far = { id: 'elsewhere:4242:x', host: 'elsewhere.invalid', pid: 4242 };
    const { store: s0, deps: d0 } = await fx.open({
      owner: far,
      leaseTtlMs: 400,
      crashPoint: crashAt('before:fix'),
    });
    await expect(fx.review(d0)).rejects.toBeInstanceOf(Crash);
    const [run] = await s0.listRuns();
    await s0.close();
    if (!run) throw new Error('no run');
    expect(run.leaseOwner?.host).toBe('elsewhere.invalid');

    const { store, deps } = await fx.open();
    // The far owner still heartbeats (its 400 ms lease could run out before the check on a loaded
    // machine), then stops: its lease runs out only after the check, however slow the machine.
    const far0 = { runId: run.id, token: run.fencingToken, owner: far, expiresAt: run.leaseExpiresAt ?? 0 };
    await store.heartbeat(far0, 60_000);
    // The pid 4242 may or may not exist here: on another host it proves nothing, so the lease must expire.
    await expect(fx.resume(deps, run.id)).rejects.toBeInstanceOf(RunBusyError);
    const last = await store.heartbeat(far0, 50);
    await new Promise((r) => setTimeout(r, Math.max(0, last.expiresAt - Date.now()) + 100));
    const res = await fx.resume(deps, run.id);
    expect(res.run.status).toBe('completed');
    expect(res.run.fencingToken).toBeGreaterThan(run.fencingToken);
    // The old owner's lease can no longer write (invariant 13).
    const stale = { runId: run.id, token: run.fencingToken, owner: far, expiresAt: run.leaseExpiresAt ?? 0 };
    await expect(store.beginRound(stale, 9, run.head)).rejects.toMatchObject({ code: 'fenced_out' });
  });
});
