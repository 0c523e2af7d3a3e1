/**
 * Work the loop does beside an agent call (readying the checkout, hashing the
 * diff again, reading the diffs the next decision needs). Starting a git
 * process blocks the event loop for a moment, so such work starts once the
 * next call is under way, where the agent's wait hides it, or as soon as
 * somebody needs its result, whichever comes first.
 */

/** Where a stage's calls announce that one is under way (RunContext). */
export interface CallStarts {
  whenCallStarts(fn: () => void): void;
}

export interface Deferred<T> {
  /** The work's result, starting the work now if no call has started it yet. */
  get(): Promise<T>;
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
