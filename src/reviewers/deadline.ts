/**
 * One AbortSignal per call that fires at the call's absolute deadline or
 * when the caller aborts, remembering which, because the two are classified
 * differently: a passed deadline is `timeout` (retried), the controller's own
 * abort is `unknown` (the controller knows why it stopped).
 */

export type StopCause = 'deadline' | 'aborted';

export interface CallDeadline {
  readonly signal: AbortSignal;
  /** Why the signal fired, or null while it has not. */
  cause(): StopCause | null;
  /** Milliseconds left at creation (never negative). */
  readonly remainingMs: number;
  /** Clears the timer and the listener; call in `finally`. */
  dispose(): void;
}

export function startDeadline(
  deadlineMs: number,
  outer?: AbortSignal,
  now: number = Date.now(),
): CallDeadline {
  const ctrl = new AbortController();
  let cause: StopCause | null = null;
  const stop = (c: StopCause) => {
    if (cause) return;
    cause = c;
    ctrl.abort(new Error(c === 'deadline' ? 'call deadline passed' : 'call aborted'));
  };
  const remainingMs = Math.max(0, deadlineMs - now);
  const onAbort = () => stop('aborted');
  if (outer?.aborted) stop('aborted');
  else outer?.addEventListener('abort', onAbort, { once: true });
  const timer = cause ? undefined : setTimeout(() => stop('deadline'), remainingMs);
  return {
    signal: ctrl.signal,
    cause: () => cause,
    remainingMs,
    dispose() {
      if (timer) clearTimeout(timer);
      outer?.removeEventListener('abort', onAbort);
    },
  };
}
