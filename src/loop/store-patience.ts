/**
 * Riding out a ledger that is briefly gone. A failover, a restart, a pooler
 * dropping sessions or a terminated backend is ordinary life for a shared
 * PostgreSQL: the worker waits for the ledger with a bounded backoff instead
 * of ending the runs it holds, and gives up (the caller exits 5) only when the
 * ledger stays away past its patience. Only `store_unavailable` is waited for:
 * a read-only, full or corrupt ledger is not going to heal by waiting.
 */
import { RevloopError } from '../core/errors.js';
import type { Clock } from '../ports/clock.js';

/** The first pause between probes, doubled up to the cap. */
const FIRST_PAUSE_MS = 250;
const MAX_PAUSE_MS = 5_000;
/** How long a worker waits for its ledger before giving up, unless told otherwise. */
export const DEFAULT_STORE_PATIENCE_MS = 120_000;

export interface StoreWaitEvents {
  /** Once, when a wait begins: the fault that started it. */
  onWait?: ((err: Error) => void) | undefined;
  /** Once, when the ledger answers again after a wait. */
  onBack?: ((waitedMs: number) => void) | undefined;
}

export function isTransientStoreFault(err: unknown): err is RevloopError {
  return err instanceof RevloopError && err.code === 'store_unavailable';
}

/** Every fault of the ledger itself: the transient one, and those waiting does not heal. */
const LEDGER_FAULTS = new Set([
  'store_unavailable',
  'store_readonly',
  'store_full',
  'store_locked',
  'store_corrupt',
]);

export function isLedgerFault(err: unknown): err is RevloopError {
  return err instanceof RevloopError && LEDGER_FAULTS.has(err.code);
}

export class StorePatience {
  /** Waits in progress share one announcement: lanes of one worker see the same outage. */
  private waiting = 0;
  private since = 0;

  constructor(
    private readonly clock: Clock,
    private readonly patienceMs: number,
    private readonly events: StoreWaitEvents = {},
    private readonly signal?: AbortSignal,
  ) {}

  /**
   * Runs `op`, and while it fails with a transient store fault, waits and runs
   * it again. Throws the last fault once the ledger has been away for longer
   * than the patience, or at once when the worker is asked to stop.
   */
  async ride<T>(op: () => Promise<T>): Promise<T> {
    try {
      return await op();
    } catch (err) {
      if (!isTransientStoreFault(err)) throw err;
      return this.waitFor(op, err);
    }
  }

  private async waitFor<T>(op: () => Promise<T>, first: Error): Promise<T> {
    // No patience: no wait to announce, the fault is the answer.
    if (this.patienceMs <= 0) throw first;
    if (this.waiting++ === 0) {
      this.since = this.clock.now();
      this.events.onWait?.(first);
    }
    const start = this.clock.now();
    let pause = FIRST_PAUSE_MS;
    let last: Error = first;
    try {
      for (;;) {
        if (this.signal?.aborted || this.clock.now() - start >= this.patienceMs) throw last;
        await this.clock.sleep(
          Math.min(pause, Math.max(1, start + this.patienceMs - this.clock.now())),
          this.signal,
        );
        pause = Math.min(MAX_PAUSE_MS, pause * 2);
        try {
          const out = await op();
          if (this.waiting === 1) this.events.onBack?.(this.clock.now() - this.since);
          return out;
        } catch (err) {
          if (!isTransientStoreFault(err)) throw err;
          last = err;
        }
      }
    } finally {
      this.waiting--;
    }
  }
}
