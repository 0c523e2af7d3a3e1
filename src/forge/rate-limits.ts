/**
 * What the forge last said about this process's rate limits, per forge and
 * resource: GitHub sends `x-ratelimit-remaining`, `-limit`, `-reset` and
 * `-resource` on every REST answer, errors included. The service's
 * `/metrics` reads it; one board per process, as the limits are the
 * credential's, whichever client spent them.
 */

export interface RateLimitReading {
  forge: string;
  resource: string;
  remaining: number;
  limit: number;
  /** When the window resets, in epoch seconds. */
  resetAt: number;
}

const board = new Map<string, RateLimitReading>();

const numberOf = (v: unknown): number | null => {
  const n = typeof v === 'string' || typeof v === 'number' ? Number(v) : Number.NaN;
  return Number.isFinite(n) && n >= 0 ? n : null;
};

/** Notes the headers of one answer; an answer without them (a proxy's, a GHES without limits) changes nothing. */
export function noteRateLimit(forge: string, headers: Readonly<Record<string, unknown>> | undefined): void {
  if (!headers) return;
  const remaining = numberOf(headers['x-ratelimit-remaining']);
  const limit = numberOf(headers['x-ratelimit-limit']);
  if (remaining === null || limit === null) return;
  const resource =
    typeof headers['x-ratelimit-resource'] === 'string' ? headers['x-ratelimit-resource'] : 'core';
  board.set(`${forge} ${resource}`, {
    forge,
    resource,
    remaining,
    limit,
    resetAt: numberOf(headers['x-ratelimit-reset']) ?? 0,
  });
}

/** The latest reading of each forge and resource, in a stable order. */
export const rateLimitReadings = (): RateLimitReading[] =>
  [...board.values()].sort((a, b) => `${a.forge} ${a.resource}`.localeCompare(`${b.forge} ${b.resource}`));

/** For tests: forget every reading. */
export const forgetRateLimits = (): void => board.clear();
