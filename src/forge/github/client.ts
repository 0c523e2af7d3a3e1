/**
 * The GitHub client: octokit with its retry and throttling plugins. Rate
 * limits (429, a primary limit with `x-ratelimit-remaining: 0`, a secondary
 * limit with `Retry-After`) go to the throttling plugin, which waits as the
 * forge asks; 5xx and resets go to the retry plugin; both stop after
 * `retries`, and a wait longer than `maxWaitSeconds` is not taken.
 */
import { retry } from '@octokit/plugin-retry';
import { throttling } from '@octokit/plugin-throttling';
import { Octokit } from '@octokit/rest';
import { CONTROLLER_VERSION } from '../../version.js';

// Typed as Octokit itself: the plugins add no REST methods revloop calls, and the
// plugin-extended type cannot be named in the emitted declarations.
const GitHub: typeof Octokit = Octokit.plugin(retry, throttling);
export type GitHubClient = Octokit;

export interface GitHubClientOptions {
  token: string;
  baseUrl: string;
  retries?: number;
  maxWaitSeconds?: number;
  /** Milliseconds per second of `Retry-After` (tests shrink it; the forge's own waits stay in proportion). */
  retryAfterUnitMs?: number;
  /** GitHub asks integrations to space writes (one a second, notifications three); tests turn it off. */
  paceWrites?: boolean;
}

const quiet = { debug() {}, info() {}, warn() {}, error() {} };
const unpaced = { key: () => ({ schedule: (_o: unknown, fn: () => unknown) => fn() }) };

export function githubClient(o: GitHubClientOptions): GitHubClient {
  const retries = o.retries ?? 3;
  const maxWait = o.maxWaitSeconds ?? 120;
  const within = (retryAfter: number, _opts: unknown, _k: unknown, count: number): boolean =>
    count < retries && retryAfter <= maxWait;
  const unit = o.retryAfterUnitMs ?? 1000;
  return new GitHub({
    auth: o.token,
    baseUrl: o.baseUrl.replace(/\/+$/, ''),
    userAgent: CONTROLLER_VERSION,
    // Octokit's logger never sees the token; revloop prints its own one-line errors.
    log: quiet,
    retry: { retries, retryAfterBaseValue: unit, doNotRetry: [400, 401, 403, 404, 410, 422, 429, 451] },
    throttle: {
      onRateLimit: within as never,
      onSecondaryRateLimit: within as never,
      retryAfterBaseValue: unit,
      fallbackSecondaryRateRetryAfter: 60,
      ...(o.paceWrites === false ? { write: unpaced as never, notifications: unpaced as never } : {}),
    },
  });
}
