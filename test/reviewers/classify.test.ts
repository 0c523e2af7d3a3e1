import { describe, expect, it } from 'vitest';
import {
  classifyClaudeApiError,
  classifyCodexFailure,
  classifyExit,
  classifyHttpStatus,
  classifyProviderErrorType,
  classifySdkError,
  errnoOf,
  isUnavailableErrno,
} from '../../src/reviewers/classify.js';

describe('classification table', () => {
  it.each([
    [429, 'rate_limited'],
    [408, 'timeout'],
    [500, 'unavailable'],
    [502, 'unavailable'],
    [503, 'unavailable'],
    [529, 'unavailable'],
    [400, 'failed'],
    [401, 'failed'],
    [403, 'failed'],
    [404, 'failed'],
  ] as const)('HTTP %i -> %s', (status, cls) => {
    expect(classifyHttpStatus(status)).toBe(cls);
  });

  it.each([
    ['rate_limit_error', 'rate_limited'],
    ['overloaded_error', 'unavailable'],
    ['api_error', 'unavailable'],
    ['authentication_error', 'failed'],
    [null, null],
  ] as const)('provider error type %s -> %s', (type, cls) => {
    expect(classifyProviderErrorType(type)).toBe(cls);
  });

  it('errno codes: connection trouble is unavailable; errno is found down the cause chain', () => {
    for (const code of ['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET'])
      expect(isUnavailableErrno(code)).toBe(true);
    expect(isUnavailableErrno('ENOENT')).toBe(false);
    expect(
      errnoOf(new Error('fetch failed', { cause: Object.assign(new Error('x'), { code: 'ECONNRESET' }) })),
    ).toBe('ECONNRESET');
  });

  it('exit codes: 75 is unavailable, anything else failed', () => {
    expect(classifyExit(75)).toBe('unavailable');
    expect(classifyExit(1)).toBe('failed');
    expect(classifyExit(null)).toBe('failed');
  });

  it('SDK-shaped errors: stream breaks are truncated, connection errors unavailable', () => {
    class APIConnectionError extends Error {}
    class APIConnectionTimeoutError extends Error {}
    const reset = new TypeError('terminated', {
      cause: Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }),
    });
    expect(classifySdkError(reset, true).cls).toBe('truncated');
    expect(classifySdkError(reset, false).cls).toBe('unavailable');
    expect(classifySdkError(new APIConnectionError('Connection error.'), false).cls).toBe('unavailable');
    expect(classifySdkError(new APIConnectionTimeoutError('timed out'), false).cls).toBe('timeout');
    const finer = new Headers({ 'retry-after': '2', 'retry-after-ms': '1500' });
    expect(
      classifySdkError(Object.assign(new Error('429'), { status: 429, headers: finer }), false)
        .retryAfterHeader,
    ).toBe('1.5');
    const headers = new Headers({ 'retry-after': '9' });
    expect(classifySdkError(Object.assign(new Error('429'), { status: 429, headers }), false)).toEqual({
      cls: 'rate_limited',
      why: 'HTTP 429',
      retryAfterHeader: '9',
    });
    expect(
      classifySdkError(Object.assign(new Error('x'), { status: undefined, type: 'overloaded_error' }), true)
        .cls,
    ).toBe('unavailable');
    expect(classifySdkError(new Error('weird'), false).cls).toBe('failed');
  });
});

describe('agent CLI failures (issue 15, point 5)', () => {
  it('Claude Code: api_error_status and api_error_type as the API sent them; no response is an outage', () => {
    expect(classifyClaudeApiError(429, 'rate_limit_error', undefined)).toBe('rate_limited');
    expect(classifyClaudeApiError(500, 'api_error', undefined)).toBe('unavailable');
    expect(classifyClaudeApiError(529, 'overloaded_error', undefined)).toBe('unavailable');
    expect(classifyClaudeApiError(401, 'authentication_error', undefined)).toBe('failed');
    expect(classifyClaudeApiError(null, null, 'connection_failed')).toBe('unavailable');
    expect(classifyClaudeApiError(null, null, 'stream_idle_timeout')).toBe('timeout');
    // An error of Claude Code's own (no API failure named) is left to the adapter: failed.
    expect(classifyClaudeApiError(null, null, undefined)).toBeNull();
  });

  it("Codex: the status in turn.failed's message, its reconnects, its 5xx and cut-stream wording", () => {
    expect(classifyCodexFailure('exceeded retry limit, last status: 429 Too Many Requests', 0)).toBe(
      'rate_limited',
    );
    expect(classifyCodexFailure('unexpected status 503 Service Unavailable: x, url: y', 0)).toBe(
      'unavailable',
    );
    expect(classifyCodexFailure('unexpected status 401 Unauthorized: x', 0)).toBe('failed');
    expect(
      classifyCodexFailure('We’re currently experiencing high demand, which may cause temporary errors.', 0),
    ).toBe('unavailable');
    expect(classifyCodexFailure('something odd', 2)).toBe('unavailable');
    expect(classifyCodexFailure('stream disconnected before completion: upstream fell over', 0)).toBe(
      'truncated',
    );
    expect(classifyCodexFailure('usage limit reached', 0)).toBeNull();
  });
});
