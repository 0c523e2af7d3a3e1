/**
 * Invariant 7 as pure functions: which failed calls are retried under the
 * same call key, and after how long. Time and randomness are passed in.
 */
import { type CallClass, isRetryable } from './types.js';

/**
 * Reads an HTTP `Retry-After` header: delta-seconds or an HTTP-date.
 * Returns milliseconds to wait (0 for a date already past), or null when the
 * header is absent or unreadable, so the caller falls back to backoff.
 */
export function parseRetryAfter(header: string | null | undefined, nowMs: number): number | null {
  if (header == null) return null;
  const value = header.trim();
  if (value.length === 0) return null;
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  // A fractional delta is not in RFC 9110 but some gateways send it; accept it rather than ignore the wait.
  if (/^\d+\.\d+$/.test(value)) return Math.ceil(Number(value) * 1000);
  // An HTTP-date always names a weekday and a time; require letters so a bare number never parses as a year.
  if (!/[A-Za-z]/.test(value)) return null;
  const at = Date.parse(value);
  if (Number.isNaN(at)) return null;
  return Math.max(0, at - nowMs);
}

export interface RetryInput {
  /** How the attempt that just ended was classified. */
  cls: CallClass;
  /** 1-based number of the attempt that just ended. */
  attempt: number;
  /** Total attempts allowed for one call key (config `retry.attempts`), the first included. */
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** The endpoint's Retry-After, already in ms, when it sent one. */
  retryAfterMs?: number | null | undefined;
  /** A uniform draw in [0, 1). */
  random: () => number;
}

/** Why a failed attempt is not retried. */
export type NoRetryReason = 'not_retryable' | 'attempts_exhausted' | 'retry_after_exceeds_cap';

export type RetryDecision = { retry: true; delayMs: number } | { retry: false; reason: NoRetryReason };

/**
 * Decides whether to retry a failed attempt. Only the classes in RETRYABLE
 * are retried; the delay is full-jitter exponential backoff
 * (`random() * min(maxDelayMs, baseDelayMs * 2^(attempt-1))`), raised to the
 * endpoint's Retry-After when it sent one.
 *
 * A Retry-After longer than `maxDelayMs` gives up (`retry_after_exceeds_cap`)
 * instead of waiting past the cap or retrying early: an early retry would only
 * meet another 429, and the cap is the longest a call may sit idle.
 */
export function nextRetry(input: RetryInput): RetryDecision {
  if (input.cls === 'ok' || !isRetryable(input.cls)) return { retry: false, reason: 'not_retryable' };
  if (input.attempt >= input.maxAttempts) return { retry: false, reason: 'attempts_exhausted' };
  const cap = Math.max(0, input.maxDelayMs);
  const retryAfter = input.retryAfterMs ?? null;
  if (retryAfter !== null && retryAfter > cap) return { retry: false, reason: 'retry_after_exceeds_cap' };
  const exp = Math.min(cap, Math.max(0, input.baseDelayMs) * 2 ** Math.max(0, input.attempt - 1));
  const draw = Math.min(Math.max(input.random(), 0), 1);
  const jittered = Math.floor(draw * exp);
  const delayMs = Math.min(cap, Math.max(jittered, retryAfter ?? 0));
  return { retry: true, delayMs };
}
