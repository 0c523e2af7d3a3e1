/**
 * The one scheduler of side work: work the loop does beside an agent call
 * (readying the checkout, hashing the diff again, reading the diffs the next
 * decision needs, moving the run's ref). Starting a git process blocks the
 * event loop for a moment, so such work starts once the next call is under
 * way, where the agent's wait hides it, or as soon as somebody needs its
 * result, whichever comes first. The driver makes one per run it holds; the
 * call site that starts agents tells it when one began. No port knows about
 * it: ports do one thing when asked.
 */

/** Where work waits for the next agent call (a SideWork). */
export interface CallStarts {
  whenCallStarts(fn: () => void): void;
}

export interface Deferred<T> {
  /** The work's result, starting the work now if no call has started it yet. */
  get(): Promise<T>;
}

export class SideWork implements CallStarts {
  private waiting: (() => void)[] = [];

  /** Runs `fn` once the next agent call is under way. */
  whenCallStarts(fn: () => void): void {
    this.waiting.push(fn);
  }

  /** Called by callAgent right after an agent call began: starts whatever waited for one. */
  callStarted(): void {
    const waiting = this.waiting;
    this.waiting = [];
    for (const fn of waiting) fn();
  }
}

export function besideNextCall<T>(calls: CallStarts, work: () => Promise<T>): Deferred<T> {
  let started: Promise<T> | null = null;
  const get = (): Promise<T> => {
    if (!started) {
      started = work();
      // Observed here so a failure is never unhandled; it is kept for whoever calls get().
      started.catch(() => undefined);
    }
    return started;
  };
  calls.whenCallStarts(() => void get());
  return { get };
}
