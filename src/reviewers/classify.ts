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
 * | agent CLI: Claude `api_error_status`/`api_error_type`, Codex `turn.failed` status | as the HTTP rows |
 * | agent CLI: Claude `api_error` connection_failed/no_response; Codex `Reconnecting...` | unavailable |
 * | agent CLI: Codex `stream disconnected before completion` | truncated |
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

/**
 * Class of an HTTP status together with the provider's error `type`: the
 * status decides for 429, 408 and 5xx; for other statuses a known type wins
 * (a 400 carrying `overloaded_error` is an outage, not a bad request).
 */
export function classifyStatusAndType(status: number, type: string | null | undefined): ErrorClass {
  if (status >= 500 || status === 429 || status === 408) return classifyHttpStatus(status);
  return classifyProviderErrorType(type) ?? classifyHttpStatus(status);
}

/**
 * Class of an API failure Claude Code reports in its result envelope
 * (`is_error: true`): `api_error_status` and `api_error_type` as the API sent
 * them, or, with no response at all, `api_error` naming why. Null when the
 * envelope names no API failure (the error is Claude Code's own).
 */
export function classifyClaudeApiError(status: unknown, type: unknown, apiError: unknown): ErrorClass | null {
  const t = typeof type === 'string' ? type : null;
  if (typeof status === 'number' && Number.isInteger(status)) return classifyStatusAndType(status, t);
  if (t) return classifyProviderErrorType(t);
  switch (apiError) {
    case 'connection_failed':
    case 'no_response':
      return 'unavailable';
    case 'stream_idle_timeout':
      return 'timeout';
    default:
      return null;
  }
}

/** Codex's words for an HTTP failure: `exceeded retry limit, last status: 429 ...`, `unexpected status 503 ...`. */
const CODEX_STATUS = /\b(?:last status|unexpected status):? (\d{3})\b/;
/** What Codex prints for a 500 from the Responses API, in place of the status. */
const CODEX_SERVER_ERROR = /experiencing high demand/i;

/**
 * Class of a Codex `turn.failed` message. `reconnects` counts the
 * `Reconnecting... n/m` error events before it: Codex retried the stream
 * against an endpoint that kept failing, so it is an outage. Null when the
 * message names no transport failure (the failure is the agent's own).
 */
export function classifyCodexFailure(message: string, reconnects: number): ErrorClass | null {
  const status = CODEX_STATUS.exec(message);
  if (status?.[1]) return classifyHttpStatus(Number(status[1]));
  if (/^stream disconnected before completion/.test(message)) return 'truncated';
  if (reconnects > 0 || CODEX_SERVER_ERROR.test(message)) return 'unavailable';
  return null;
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
    const cls = classifyStatusAndType(status, providerType(e));
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
