import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nextRetry, parseRetryAfter } from '../../src/core/retry-policy.js';
import { CallClass, RETRYABLE } from '../../src/core/types.js';

const NOW = Date.UTC(2026, 10, 30, 12, 0, 0);
const base = { attempt: 1, maxAttempts: 3, baseDelayMs: 500, maxDelayMs: 30_000, random: () => 0.5 };

describe('parseRetryAfter', () => {
  it.each([
    ['0', 0],
    ['7', 7000],
    [' 120 ', 120_000],
    ['1.5', 1500],
    [new Date(NOW + 42_000).toUTCString(), 42_000],
    [new Date(NOW - 5_000).toUTCString(), 0],
    ['', null],
    ['soon', null],
    ['-3', null],
    ['2026', 2_026_000],
  ] as const)('%j -> %j', (header, ms) => {
    expect(parseRetryAfter(header, NOW)).toBe(ms);
  });

  it('absent header is null', () => {
    expect(parseRetryAfter(null, NOW)).toBeNull();
    expect(parseRetryAfter(undefined, NOW)).toBeNull();
  });
});

describe('nextRetry (invariant 7)', () => {
  it.each([
    ['rate_limited', true],
    ['unavailable', true],
    ['timeout', true],
    ['truncated', true],
    ['malformed', false],
    ['refused', false],
    ['missing_context', false],
    ['model_drift', false],
    ['failed', false],
    ['unknown', false],
    ['ok', false],
  ] as const)('%s retried: %s', (cls, retried) => {
    expect(nextRetry({ ...base, cls }).retry).toBe(retried);
  });

  it('stops when attempts are used up', () => {
    expect(nextRetry({ ...base, cls: 'timeout', attempt: 3 })).toEqual({
      retry: false,
      reason: 'attempts_exhausted',
    });
    expect(nextRetry({ ...base, cls: 'timeout', attempt: 2 }).retry).toBe(true);
  });

  it('full-jitter exponential backoff: random() * min(cap, base * 2^(attempt-1))', () => {
    expect(
      nextRetry({ ...base, cls: 'unavailable', attempt: 1, maxAttempts: 10, random: () => 0.5 }),
    ).toEqual({ retry: true, delayMs: 250 });
    expect(
      nextRetry({ ...base, cls: 'unavailable', attempt: 4, maxAttempts: 10, random: () => 0.5 }),
    ).toEqual({ retry: true, delayMs: 2000 });
    expect(
      nextRetry({ ...base, cls: 'unavailable', attempt: 9, maxAttempts: 10, random: () => 0.999 }),
    ).toEqual({
      retry: true,
      delayMs: 29_970,
    });
  });

  it('waits at least Retry-After, and gives up when Retry-After exceeds the cap', () => {
    expect(nextRetry({ ...base, cls: 'rate_limited', retryAfterMs: 7000, random: () => 0 })).toEqual({
      retry: true,
      delayMs: 7000,
    });
    expect(nextRetry({ ...base, cls: 'rate_limited', retryAfterMs: 60_000 })).toEqual({
      retry: false,
      reason: 'retry_after_exceeds_cap',
    });
    expect(nextRetry({ ...base, cls: 'rate_limited', retryAfterMs: 30_000 })).toEqual({
      retry: true,
      delayMs: 30_000,
    });
  });

  const classes = fc.constantFrom(...Object.values(CallClass));
  const input = fc.record({
    cls: classes,
    attempt: fc.integer({ min: 1, max: 20 }),
    maxAttempts: fc.integer({ min: 1, max: 10 }),
    baseDelayMs: fc.integer({ min: 0, max: 10_000 }),
    maxDelayMs: fc.integer({ min: 1, max: 120_000 }),
    retryAfterMs: fc.option(fc.integer({ min: 0, max: 200_000 }), { nil: undefined }),
    draw: fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
  });

  it('property: never retries a class outside RETRYABLE', () => {
    fc.assert(
      fc.property(input, ({ draw, ...i }) => {
        const d = nextRetry({ ...i, random: () => draw });
        if (!RETRYABLE.includes(i.cls)) expect(d).toEqual({ retry: false, reason: 'not_retryable' });
      }),
    );
  });

  it('property: delays lie within [Retry-After, cap] and are whole milliseconds', () => {
    fc.assert(
      fc.property(input, ({ draw, ...i }) => {
        const d = nextRetry({ ...i, random: () => draw });
        if (!d.retry) return;
        expect(d.delayMs).toBeGreaterThanOrEqual(i.retryAfterMs ?? 0);
        expect(d.delayMs).toBeLessThanOrEqual(i.maxDelayMs);
        expect(Number.isInteger(d.delayMs)).toBe(true);
      }),
    );
  });

  it('property: a loop driven by it makes at most maxAttempts attempts', () => {
    fc.assert(
      fc.property(
        input,
        fc.array(fc.constantFrom(...RETRYABLE), { minLength: 20, maxLength: 20 }),
        ({ draw, ...i }, outcomes) => {
          let attempts = 0;
          for (const cls of outcomes) {
            attempts++;
            const d = nextRetry({
              ...i,
              cls,
              attempt: attempts,
              retryAfterMs: undefined,
              random: () => draw,
            });
            if (!d.retry) break;
          }
          expect(attempts).toBeLessThanOrEqual(i.maxAttempts);
        },
      ),
    );
  });
});
