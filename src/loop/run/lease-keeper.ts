/**
 * Keeps the run's lease alive with heartbeats (a third of its time to live).
 * A heartbeat the store refuses means another worker took the run over
 * (invariant 13): the keeper flags it and the driver stops at the next boundary;
 * any write it tries meanwhile is refused by the store anyway.
 */
import type { Lease } from '../../core/ledger.js';
import type { Store } from '../../ports/store.js';

export interface LeaseKeeper {
  current(): Lease;
  lost(): Error | null;
  stop(): void;
}

export function keepLease(store: Store, lease: Lease, ttlMs: number): LeaseKeeper {
  let current = lease;
  let lostWith: Error | null = null;
  let busy = false;
  const timer = setInterval(
    () => {
      if (busy || lostWith) return;
      busy = true;
      store
        .heartbeat(current, ttlMs)
        .then((l) => {
          current = l;
        })
        .catch((err: Error) => {
          if ((err as { code?: string }).code === 'fenced_out') lostWith = err;
        })
        .finally(() => {
          busy = false;
        });
    },
    Math.max(50, Math.floor(ttlMs / 3)),
  );
  timer.unref();
  return {
    current: () => current,
    lost: () => lostWith,
    stop: () => clearInterval(timer),
  };
}
