/**
 * Turns committed deliveries into runs, beside the HTTP server: claim the
 * oldest pending delivery, fetch the pull request's live head (and its base
 * branch) from the forge into the served clone, and admit it. The head is
 * fetched into one ref per pull request, so a newer push moves that ref and
 * the older run, queued or running, is superseded at its next freeze check;
 * admission keys make every copy of one revision answer with one run. A
 * closed pull request cancels its queued runs.
 */
import { RevloopError } from '../core/errors.js';
import { type AdmitRequest, admit } from '../loop/admission.js';
import type { LoopDeps } from '../loop/deps.js';
import { NothingToReviewError } from '../loop/errors.js';
import { isLedgerFault } from '../loop/store-patience.js';
import type { DeliveryEnd, DeliveryForge, DeliveryRow } from '../ports/deliveries.js';
import type { AdmissionLimits, RerunRequest } from '../ports/store.js';
import type { RerunOutcome } from './comment-commands.js';
import type { Served, ServeLog } from './deps.js';

/** The ref of a pull request's head in the served clone. */
export const pullRef = (forge: DeliveryForge, pr: number): string => `refs/revloop/pulls/${forge}/${pr}`;
/** The change a pull request's runs belong to (the change key is `<repo identity>#<change>`). */
export const pullChange = (forge: DeliveryForge, pr: number): string =>
  forge === 'github' ? `pull/${pr}` : `merge_requests/${pr}`;
/** Where the forge keeps a pull request's head. */
const forgeHeadRef = (forge: DeliveryForge, pr: number): string =>
  forge === 'github' ? `refs/pull/${pr}/head` : `refs/merge-requests/${pr}/head`;

export interface AdmitterOptions {
  /** How long a claim holds a delivery before another serve process may take it. */
  claimMs?: number | undefined;
  /** A fetch that fails is tried again this many times before the delivery is failed. */
  fetchAttempts?: number | undefined;
  /** How soon a delivery is tried again after a transient fault or a deferred admission. */
  retryMs?: number | undefined;
  /** Whether the pull request carries the pause label (`/revloop pause`): asked of the forge, never of the event. */
  isPaused?: ((pr: number) => Promise<boolean>) | undefined;
  /**
   * The served repository's limits on runs queued or running at once and on
   * spend in a window, counted over that repository's runs alone. A delivery
   * over them is deferred (tried again after `retryMs` × 6), never dropped.
   */
  limits?: ServeLimits | undefined;
  /**
   * How long to hold off before the next admission, given how long ago the
   * server last recorded a delivery (start.ts: answers first). 0: go on.
   */
  holdOff?: (() => number) | undefined;
}

/** `--max-active-runs` and `--daily-spend-usd` (the repository config's `admission` when absent). */
export interface ServeLimits {
  maxActive?: number | undefined;
  dailySpendUsd?: number | undefined;
}

/** The service's limits as the store applies them: per repository, spend over the last day. */
export const admissionLimits = (l: ServeLimits | undefined): AdmissionLimits => ({
  perRepository: true,
  maxActive: l?.maxActive,
  ...(l?.dailySpendUsd === undefined ? {} : { costBudgetUsd: l.dailySpendUsd, costWindowSeconds: 86_400 }),
});

export type Outcome = { kind: 'end'; end: DeliveryEnd } | { kind: 'retry'; afterMs: number; detail: string };

/** What one delivery comes to; every fault is turned into an end or a retry, never thrown, but a ledger's. */
export async function admitDelivery(
  deps: LoopDeps,
  served: Served,
  d: DeliveryRow,
  opts: AdmitterOptions = {},
): Promise<Outcome> {
  const retryMs = opts.retryMs ?? 5_000;
  if (d.intent === 'close') {
    const identity = await deps.git.identity(served.repoRoot);
    const cancelled = await deps.store.deliveries.cancelQueued(
      `${identity}#${pullChange(d.forge, d.pr)}`,
      `the pull request was closed (${d.event})`,
    );
    return {
      kind: 'end',
      end: { state: 'cancelled', runId: null, detail: `${cancelled.length} queued run(s) cancelled` },
    };
  }
  if (opts.isPaused) {
    const paused = await opts.isPaused(d.pr).then(
      (p) => p,
      (err: unknown) => err,
    );
    if (paused instanceof Error || (paused !== true && paused !== false)) {
      const detail = `could not ask whether pull request ${d.pr} is paused: ${firstLine(paused)}`;
      if (d.attempts < (opts.fetchAttempts ?? 5))
        return { kind: 'retry', afterMs: retryMs * d.attempts, detail };
      return { kind: 'end', end: { state: 'failed', runId: null, detail } };
    }
    if (paused)
      return {
        kind: 'end',
        end: { state: 'ignored', runId: null, detail: 'paused (/revloop resume to review again)' },
      };
  }
  const head = pullRef(d.forge, d.pr);
  const base = `refs/remotes/${served.remote}/${d.baseBranch}`;
  try {
    await deps.git.fetchRefs(served.repoRoot, served.remote, [
      `+${forgeHeadRef(d.forge, d.pr)}:${head}`,
      `+refs/heads/${d.baseBranch}:${base}`,
    ]);
  } catch (err) {
    const detail = `fetch of ${forgeHeadRef(d.forge, d.pr)} from ${served.remote} failed: ${firstLine(err)}`;
    if (d.attempts < (opts.fetchAttempts ?? 5))
      return { kind: 'retry', afterMs: retryMs * d.attempts, detail };
    return { kind: 'end', end: { state: 'failed', runId: null, detail } };
  }
  const req: AdmitRequest = {
    repoDir: served.repoRoot,
    baseRef: base,
    headRef: head,
    change: pullChange(d.forge, d.pr),
    configFrom: 'base',
    limits: admissionLimits(opts.limits),
  };
  try {
    const { result } = await admit(deps, req);
    if (result.kind === 'deferred')
      return { kind: 'retry', afterMs: retryMs * 6, detail: `deferred (${result.limit}): ${result.detail}` };
    return {
      kind: 'end',
      end: {
        state: 'admitted',
        runId: result.run.id,
        detail: result.kind === 'created' ? 'created' : 'existing',
      },
    };
  } catch (err) {
    if (isLedgerFault(err)) throw err;
    if (err instanceof NothingToReviewError)
      return { kind: 'end', end: { state: 'ignored', runId: null, detail: err.message } };
    // A config the base cannot load, an ambiguous ref, a diff too large: the delivery says why, for good.
    return { kind: 'end', end: { state: 'failed', runId: null, detail: firstLine(err) } };
  }
}

/**
 * `/revloop review`: the pull request's live head reviewed again, on purpose
 * (who asked, why), against the base its latest run was admitted with, as
 * `review --rerun --reason` does. A pull request no run was admitted for yet
 * has nothing to review again.
 */
export async function admitRerun(
  deps: LoopDeps,
  served: Served,
  forge: DeliveryForge,
  pr: number,
  rerun: RerunRequest,
  limits?: ServeLimits | undefined,
): Promise<RerunOutcome> {
  const identity = await deps.git.identity(served.repoRoot);
  const runs = await deps.store.listRuns({ changeKey: `${identity}#${pullChange(forge, pr)}` });
  const latest = runs.sort((a, b) => b.createdAt - a.createdAt)[0];
  if (!latest) return { kind: 'deferred', detail: 'no review of this pull request yet' };
  const head = pullRef(forge, pr);
  await deps.git.fetchRefs(served.repoRoot, served.remote, [`+${forgeHeadRef(forge, pr)}:${head}`]);
  const { result } = await admit(deps, {
    repoDir: served.repoRoot,
    baseRef: latest.snapshot.base,
    headRef: head,
    change: pullChange(forge, pr),
    configFrom: 'base',
    rerun,
    limits: admissionLimits(limits),
  });
  if (result.kind === 'deferred') return { kind: 'deferred', detail: result.detail };
  return { kind: result.kind === 'created' ? 'admitted' : 'existing', runId: result.run.id };
}

const firstLine = (err: unknown): string =>
  (err instanceof RevloopError || err instanceof Error ? err.message : String(err))
    .split('\n')[0]
    ?.slice(0, 500) ?? '';

/**
 * Claims and admits deliveries until `signal` aborts. `wake()` ends an idle
 * wait at once (the router calls it after a commit); without it the admitter
 * polls every `idleMs`, which also picks up what another process left.
 */
export function startAdmitter(
  deps: LoopDeps,
  served: Served,
  log: ServeLog,
  o: AdmitterOptions & { idleMs?: number | undefined; signal: AbortSignal },
): { wake: () => void; done: Promise<void> } {
  let waker: (() => void) | null = null;
  let woken = false;
  const wake = () => {
    woken = true;
    waker?.();
  };
  const idle = (ms: number) =>
    new Promise<void>((done) => {
      if (woken || o.signal.aborted) return done();
      const t = setTimeout(done, ms);
      waker = () => {
        clearTimeout(t);
        done();
      };
      o.signal.addEventListener('abort', waker, { once: true });
    }).finally(() => {
      if (waker) o.signal.removeEventListener('abort', waker);
      waker = null;
      woken = false;
    });
  const loop = async () => {
    while (!o.signal.aborted) {
      let d: DeliveryRow | null = null;
      const wait = o.holdOff?.() ?? 0;
      if (wait > 0) {
        await pause(wait, o.signal);
        continue;
      }
      try {
        d = await deps.store.deliveries.claimDelivery(o.claimMs ?? 60_000);
        if (!d) {
          await idle(o.idleMs ?? 1000);
          continue;
        }
        const out = await admitDelivery(deps, served, d, o);
        if (out.kind === 'retry') {
          await deps.store.deliveries.retryDelivery(d.forge, d.deliveryId, out.afterMs, out.detail);
          log('delivery deferred', { delivery: d.deliveryId, pr: d.pr, detail: out.detail });
        } else {
          await deps.store.deliveries.endDelivery(d.forge, d.deliveryId, out.end);
          log(`delivery ${out.end.state}`, {
            delivery: d.deliveryId,
            pr: d.pr,
            runId: out.end.runId,
            detail: out.end.detail,
          });
        }
      } catch (err) {
        // The ledger is away: the claim lapses and the delivery is taken again once it is back.
        log('admission interrupted', { delivery: d?.deliveryId ?? null, error: firstLine(err) });
        await idle(o.idleMs ?? 1000);
      }
    }
  };
  return { wake, done: loop() };
}

/** A plain wait that a wake does not cut short (the admitter holds off on purpose), only a stop. */
const pause = (ms: number, signal: AbortSignal) =>
  new Promise<void>((done) => {
    const t = setTimeout(finish, ms);
    function finish() {
      clearTimeout(t);
      signal.removeEventListener('abort', finish);
      done();
    }
    signal.addEventListener('abort', finish, { once: true });
  });
