/**
 * Every mapping from a transport signal (HTTP status, provider error type,
 * errno, exit code, SDK error) to a call class lives here, so "what is
 * retried" is decided in one table (invariant 7), not in each adapter.
 *
 * | signal                                             | class          |
 * |----------------------------------------------------|----------------|
 * | HTTP 429, `rate_limit_error`                       | rate_limited   |
 * | HTTP 408, SDK connection timeout, deadline passed  | timeout        |
 * | HTTP 5xx, 529, `overloaded_error`, `api_error`     | unavailable    |
 * | ECONNREFUSED, ECONNRESET, EPIPE, EHOSTUNREACH, ... | unavailable    |
 * | stream ended or broke after the response began    | truncated      |
 * | HTTP 401/403/404/400/422 and other 4xx             | failed         |
 * | exit 75 (EX_TEMPFAIL)                              | unavailable    |
 * | any other non-zero exit, death by a signal         | failed         |
 * | ENOENT / EACCES on spawn                           | failed         |
 * | the caller's own abort signal                      | unknown        |
 */
import type { CallClass } from '../core/types.js';

export type ErrorClass = Exclude<CallClass, 'ok'>;

/** Exit status that means "try again later" (sysexits.h EX_TEMPFAIL). */
export const EXIT_TEMPFAIL = 75;

const UNAVAILABLE_ERRNO = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'EAI_AGAIN',
  'ENOTFOUND',
  'ETIMEDOUT',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_CLOSED',
]);

/** Class of an HTTP error status. */
export function classifyHttpStatus(status: number): ErrorClass {
  if (status === 429) return 'rate_limited';
  if (status === 408) return 'timeout';
  if (status >= 500) return 'unavailable';
  return 'failed';
}

/** Class of a provider error `type` sent in a body or a streamed `error` event (Anthropic, OpenAI). */
export function classifyProviderErrorType(type: string | null | undefined): ErrorClass | null {
  switch (type) {
    case 'rate_limit_error':
    case 'rate_limit_exceeded':
      return 'rate_limited';
    case 'overloaded_error':
    case 'api_error':
    case 'server_error':
      return 'unavailable';
    case 'timeout_error':
      return 'timeout';
    case undefined:
    case null:
      return null;
    default:
      return 'failed';
  }
}

/** Whether a Node/undici errno code means the endpoint could not be reached. */
export function isUnavailableErrno(code: string | undefined): boolean {
  return code !== undefined && UNAVAILABLE_ERRNO.has(code);
}

/** Class of a subprocess that exited on its own (not killed by revloop) with a non-zero status. */
export function classifyExit(code: number | null): ErrorClass {
  return code === EXIT_TEMPFAIL ? 'unavailable' : 'failed';
}

/** The errno `code` of an error or of any error in its `cause` chain. */
export function errnoOf(err: unknown): string | undefined {
  let e: unknown = err;
  for (let depth = 0; depth < 5 && e && typeof e === 'object'; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^[A-Z][A-Z0-9_]+$/.test(code)) return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

export interface SdkErrorClass {
  cls: ErrorClass;
  /** The status or errno that decided the class, for the detail. */
  why: string;
  retryAfterHeader: string | null;
}

/**
 * Classifies an error thrown by the openai or @anthropic-ai/sdk client by its
 * shape (status, headers, error type, cause), so this module never imports a
 * provider SDK. `streamStarted` tells an error that broke an open stream
 * (truncated: the reply was cut) from one before any response (unavailable).
 */
export function classifySdkError(err: unknown, streamStarted: boolean): SdkErrorClass {
  const e = (err ?? {}) as {
    name?: unknown;
    status?: unknown;
    headers?: unknown;
    type?: unknown;
    error?: unknown;
  };
  // The SDKs leave `name` as "Error"; the class name is what tells their errors apart.
  const ctorName = (err as { constructor?: { name?: unknown } } | null)?.constructor?.name;
  const name =
    typeof ctorName === 'string' && ctorName !== 'Error'
      ? ctorName
      : typeof e.name === 'string'
        ? e.name
        : '';
  const header = retryAfterOf(e.headers);
  if (name === 'APIConnectionTimeoutError')
    return { cls: 'timeout', why: 'connection timeout', retryAfterHeader: null };
  if (typeof e.status === 'number') {
    const status = e.status;
    const byType = classifyProviderErrorType(providerType(e));
    const cls =
      status >= 500 || status === 429 || status === 408
        ? classifyHttpStatus(status)
        : (byType ?? classifyHttpStatus(status));
    return { cls, why: `HTTP ${status}`, retryAfterHeader: header };
  }
  const type = providerType(e);
  const byType = classifyProviderErrorType(type);
  if (byType) return { cls: byType, why: `error event ${type}`, retryAfterHeader: header };
  const errno = errnoOf(err);
  if (streamStarted)
    return { cls: 'truncated', why: `stream broke${errno ? ` (${errno})` : ''}`, retryAfterHeader: null };
  if (isUnavailableErrno(errno) || name === 'APIConnectionError')
    return { cls: 'unavailable', why: errno ?? 'connection error', retryAfterHeader: null };
  return { cls: 'failed', why: name || 'error', retryAfterHeader: null };
}

function providerType(e: { type?: unknown; error?: unknown }): string | null {
  if (typeof e.type === 'string') return e.type;
  const body = e.error as { type?: unknown; error?: { type?: unknown; code?: unknown } } | undefined;
  if (body && typeof body === 'object') {
    if (body.error && typeof body.error.type === 'string') return body.error.type;
    if (typeof body.type === 'string' && body.type !== 'error') return body.type;
  }
  return null;
}

/**
 * The Retry-After to honour. OpenAI also sends `retry-after-ms`, finer than
 * whole seconds; it wins and is passed on as fractional seconds, which
 * parseRetryAfter reads.
 */
function retryAfterOf(headers: unknown): string | null {
  if (!headers || typeof (headers as Headers).get !== 'function') return null;
  const h = headers as Headers;
  const ms = h.get('retry-after-ms');
  if (ms !== null && /^\d+(\.\d+)?$/.test(ms.trim())) return String(Number(ms) / 1000);
  return h.get('retry-after');
}
