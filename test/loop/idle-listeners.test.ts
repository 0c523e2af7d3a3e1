/**
 * Issue 15, point 19: an idle `worker`, and a `review` that waits on another
 * live process's run, poll with the system clock's sleep on the CLI's one stop
 * signal. Each sleep must take its abort listener with it: counted after many
 * polls (a count of polls, not a time), there is at most the one of the sleep
 * under way, and Node never warns MaxListenersExceeded.
 */
import { getEventListeners } from 'node:events';
import { afterAll, describe, expect, it } from 'vitest';
import { admit } from '../../src/loop/admission.js';
import { systemClock } from '../../src/loop/compose.js';
import type { LoopDeps } from '../../src/loop/deps.js';
import { reviewRevision, runWorker } from '../../src/loop/operations.js';
import type { Store } from '../../src/ports/store.js';
import { withMethod } from '../helpers/with-method.js';
import { baseConfig, inProcess, makeReviewRepo, type ReviewRepo } from './helpers.js';

const POLLS = 40;
const repos: ReviewRepo[] = [];
afterAll(async () => {
  for (const r of repos) await r.cleanup();
});

/** The system clock's own sleep, at 1 ms a poll: the listener handling is what is tested. */
const quickPolls = (d: LoopDeps, signal: AbortSignal): LoopDeps => ({
  ...d,
  signal,
  clock: { now: systemClock.now, sleep: (_ms, s) => systemClock.sleep(1, s) },
});

async function watchWarnings<T>(fn: () => Promise<T>): Promise<{ value: T; warnings: string[] }> {
  const warnings: string[] = [];
  const onWarning = (w: Error) => warnings.push(`${w.name}: ${w.message}`);
  process.on('warning', onWarning);
  try {
    return { value: await fn(), warnings };
  } finally {
    process.off('warning', onWarning);
  }
}

/**
 * The store with one polled method counted: each call notes the abort
 * listeners on the signal, and the POLLS-th call stops the poller.
 */
function countPolls(store: Store, method: 'claimNext' | 'getRun', ctrl: AbortController) {
  const seen = { polls: 0, maxListeners: 0 };
  const proxy = withMethod(
    store,
    method,
    (poll) =>
      ((...a: unknown[]) => {
        seen.maxListeners = Math.max(seen.maxListeners, getEventListeners(ctrl.signal, 'abort').length);
        if (++seen.polls >= POLLS) ctrl.abort();
        return (poll as (...x: unknown[]) => unknown)(...a);
      }) as typeof poll,
  );
  return { proxy, seen };
}

describe('idle polls leave no abort listeners behind (point 19)', () => {
  it('systemClock.sleep removes its listener when it ends', async () => {
    const ctrl = new AbortController();
    for (let i = 0; i < POLLS; i++) await systemClock.sleep(0, ctrl.signal);
    expect(getEventListeners(ctrl.signal, 'abort')).toHaveLength(0);
  });

  it('an idle worker, after many polls', async () => {
    const r = await makeReviewRepo({ config: (a) => baseConfig(a) });
    repos.push(r);
    const ctrl = new AbortController();
    const p = await inProcess(r.dir);
    const { proxy, seen } = countPolls(p.store, 'claimNext', ctrl);
    const deps = { ...quickPolls(p.deps, ctrl.signal), store: proxy };
    try {
      const { warnings } = await watchWarnings(() =>
        runWorker(deps, { concurrency: 1, exitWhenIdle: false }),
      );
      expect(seen.polls).toBe(POLLS);
      expect(seen.maxListeners).toBeLessThanOrEqual(1);
      expect(warnings.filter((w) => /MaxListeners/.test(w))).toEqual([]);
    } finally {
      await p.close();
    }
  });

  it('a review waiting on a run another live process holds, after many polls', async () => {
    const r = await makeReviewRepo({ config: (a) => baseConfig(a) });
    repos.push(r);
    const ctrl = new AbortController();
    const p = await inProcess(r.dir);
    try {
      const req = { repoDir: r.dir, headRef: 'topic', configFrom: 'base' } as const;
      const a = await admit(p.deps, req);
      if (a.result.kind === 'deferred') throw new Error('deferred');
      const runId = a.result.run.id;
      // Held by a live process on this host (this one, under another owner id): not taken over.
      const other = { ...p.deps.owner, id: `${p.deps.owner.id}-other` };
      expect(await p.store.acquireLease(runId, other, 600_000)).not.toBeNull();
      const { proxy, seen } = countPolls(p.store, 'getRun', ctrl);
      const deps = { ...quickPolls(p.deps, ctrl.signal), store: proxy };
      const { value, warnings } = await watchWarnings(() => reviewRevision(deps, req));
      expect(value).toMatchObject({ kind: 'run', detached: 'signal' });
      expect(seen.polls).toBe(POLLS);
      expect(seen.maxListeners).toBeLessThanOrEqual(1);
      expect(warnings.filter((w) => /MaxListeners/.test(w))).toEqual([]);
    } finally {
      await p.close();
    }
  });
});
