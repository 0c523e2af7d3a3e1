/**
 * Invariant 7's loop, the one every agent call goes through (the loop's calls
 * and the eval judge's): attempts are made until one succeeds or the retry
 * rule (core/retry-policy.ts) says stop; only rate limits, unavailability,
 * timeouts and truncations are tried again, after a jittered backoff that
 * honours an endpoint's Retry-After. What an attempt records is the caller's.
 */
import { nextRetry } from '../../core/retry-policy.js';
import type { Clock, Random } from '../../ports/clock.js';
import type { CallResult } from '../../ports/reviewer.js';

export type FailedAttempt = Extract<CallResult, { ok: false }>;

export interface AttemptLoop {
  /** The number of the first attempt made here (attempts an earlier owner made count). */
  from: number;
  retry: { attempts: number; baseDelayMs: number; maxDelayMs: number };
  /** Draws the backoff's jitter. */
  random: Random;
  clock: Pick<Clock, 'sleep'>;
  signal?: AbortSignal | undefined;
  attempt(n: number): Promise<CallResult>;
  /** Runs after each failed attempt, before the rule is asked (the loop records the attempt's end). */
  failed?(n: number, res: FailedAttempt): Promise<void>;
  /** Runs before the wait for the next attempt. */
  retrying?(res: FailedAttempt, delayMs: number): void;
}

/** The last attempt made, with its number: the first success, or the failure the rule gave up on. */
export type AttemptsEnd = { attempt: number; res: CallResult };

export async function attemptUntilDone(loop: AttemptLoop): Promise<AttemptsEnd> {
  for (let n = loop.from; ; n++) {
    const res = await loop.attempt(n);
    if (res.ok) return { attempt: n, res };
    await loop.failed?.(n, res);
    const next = nextRetry({
      cls: res.class,
      attempt: n,
      maxAttempts: loop.retry.attempts,
      baseDelayMs: loop.retry.baseDelayMs,
      maxDelayMs: loop.retry.maxDelayMs,
      retryAfterMs: res.retryAfterMs,
      random: () => loop.random.next(),
    });
    if (!next.retry) return { attempt: n, res };
    loop.retrying?.(res, next.delayMs);
    await loop.clock.sleep(next.delayMs, loop.signal);
  }
}
