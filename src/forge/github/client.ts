/**
 * The GitHub client: octokit with its retry and throttling plugins. Rate
 * limits (429, a primary limit with `x-ratelimit-remaining: 0`, a secondary
 * limit with `Retry-After`) go to the throttling plugin, which waits as the
 * forge asks; 5xx and resets go to the retry plugin; both stop after
 * `retries`, and a wait longer than `maxWaitSeconds` is not taken. A plain
 * 429 that names neither limit (a proxy's, or GitHub's own without the
 * headers) is neither plugin's: `plainTooManyRequests` waits its
 * `Retry-After` (or a minute, as GitHub asks when none is given) within the
 * same budget.
 */
import { retry } from '@octokit/plugin-retry';
import { throttling } from '@octokit/plugin-throttling';
import { Octokit } from '@octokit/rest';
import { CONTROLLER_VERSION } from '../../version.js';
import { noteRateLimit } from '../rate-limits.js';

// Typed as Octokit itself: the plugins add no REST methods revloop calls, and the
// plugin-extended type cannot be named in the emitted declarations.
const GitHub: typeof Octokit = Octokit.plugin(plainTooManyRequests, retry, throttling);
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

interface PlainLimit {
  retries: number;
  maxWaitSeconds: number;
  unitMs: number;
}

/** A 429 the throttling plugin would classify (a primary or a secondary limit) is left to it. */
function isClassified(err: { message?: string; response?: { headers?: Record<string, unknown> } }): boolean {
  const headers = err.response?.headers ?? {};
  return /\bsecondary rate\b/i.test(err.message ?? '') || headers['x-ratelimit-remaining'] === '0';
}

/**
 * Registered before the throttling plugin, so its wrapper sits inside: it
 * sees a 429 first and hands on only the ones it does not take.
 */
function plainTooManyRequests(octokit: Pick<Octokit, 'hook'>, options: Record<string, unknown>): void {
  const limit = options.plainLimit as PlainLimit | undefined;
  if (!limit) return;
  octokit.hook.wrap('request', async (request, opts) => {
    for (let attempt = 0; ; attempt++) {
      try {
        return await request(opts);
      } catch (err) {
        const e = err as {
          status?: number;
          message?: string;
          response?: { headers?: Record<string, unknown> };
        };
        if (e.status !== 429 || isClassified(e) || attempt >= limit.retries) throw err;
        const after = Number(e.response?.headers?.['retry-after']);
        const seconds = Number.isFinite(after) && after >= 0 ? after : 60;
        if (seconds > limit.maxWaitSeconds) throw err;
        await new Promise((done) => setTimeout(done, seconds * limit.unitMs));
      }
    }
  });
}

const quiet = { debug() {}, info() {}, warn() {}, error() {} };
const unpaced = { key: () => ({ schedule: (_o: unknown, fn: () => unknown) => fn() }) };

export function githubClient(o: GitHubClientOptions): GitHubClient {
  const retries = o.retries ?? 3;
  const maxWait = o.maxWaitSeconds ?? 120;
  const within = (retryAfter: number, _opts: unknown, _k: unknown, count: number): boolean =>
    count < retries && retryAfter <= maxWait;
  const unit = o.retryAfterUnitMs ?? 1000;
  const gh = new GitHub({
    auth: o.token,
    baseUrl: o.baseUrl.replace(/\/+$/, ''),
    userAgent: CONTROLLER_VERSION,
    // Octokit's logger never sees the token; revloop prints its own one-line errors.
    log: quiet,
    plainLimit: { retries, maxWaitSeconds: maxWait, unitMs: unit } satisfies PlainLimit,
    retry: { retries, retryAfterBaseValue: unit, doNotRetry: [400, 401, 403, 404, 410, 422, 429, 451] },
    throttle: {
      onRateLimit: within as never,
      onSecondaryRateLimit: within as never,
      retryAfterBaseValue: unit,
      fallbackSecondaryRateRetryAfter: 60,
      ...(o.paceWrites === false ? { write: unpaced as never, notifications: unpaced as never } : {}),
    },
  });
  // Every answer, a refusal included, says what is left of the limit (the service's /metrics shows it).
  gh.hook.after('request', (res) => noteRateLimit('github', res.headers as Record<string, unknown>));
  gh.hook.error('request', (err) => {
    noteRateLimit('github', (err as { response?: { headers?: Record<string, unknown> } }).response?.headers);
    throw err;
  });
  return gh;
}
