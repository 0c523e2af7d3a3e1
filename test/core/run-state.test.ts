import { describe, expect, it } from 'vitest';
import { endForCallFailure } from '../../src/core/failure-map.js';
import {
  assertTransition,
  completedEnd,
  IllegalTransitionError,
  isTerminal,
  unfinishedEnd,
} from '../../src/core/run-state.js';
import {
  CallClass,
  EndReason,
  isRetryable,
  Outcome,
  type RunRole,
  RunStatus,
  StopReason,
} from '../../src/core/types.js';

const STATUSES = Object.values(RunStatus);
const ALLOWED: Record<RunStatus, RunStatus[]> = {
  queued: ['running', 'aborted', 'unknown', 'failed'],
  running: ['running', 'completed', 'failed', 'aborted', 'timed_out', 'unknown'],
  completed: [],
  failed: [],
  aborted: [],
  timed_out: [],
  unknown: [],
};

describe('invariant 2: status is not outcome', () => {
  describe('transitions', () => {
    const pairs = STATUSES.flatMap((from) =>
      STATUSES.map((to) => [from, to, ALLOWED[from].includes(to)] as const),
    );
    it.each(pairs)('%s -> %s allowed: %s', (from, to, ok) => {
      if (ok) expect(() => assertTransition(from, to)).not.toThrow();
      else {
        expect(() => assertTransition(from, to)).toThrow(IllegalTransitionError);
        try {
          assertTransition(from, to);
        } catch (e) {
          expect(e).toMatchObject({ from, to });
        }
      }
    });

    it('a queued run cannot complete or time out without running', () => {
      expect(() => assertTransition('queued', 'completed')).toThrow(IllegalTransitionError);
      expect(() => assertTransition('queued', 'timed_out')).toThrow(IllegalTransitionError);
    });

    it('terminal statuses are exactly the ones with no way out', () => {
      for (const s of STATUSES) expect(isTerminal(s)).toBe(ALLOWED[s].length === 0);
    });
  });

  describe('completedEnd', () => {
    const pairs = Object.values(Outcome).flatMap((o) =>
      Object.values(StopReason).map((r) => [o, r] as const),
    );
    it.each(pairs)('outcome %s with stop reason %s', (outcome, stopReason) => {
      const consistent = (outcome === 'clear') === (stopReason === 'clear');
      if (consistent) {
        expect(completedEnd(outcome, stopReason, 'd')).toEqual({
          status: 'completed',
          outcome,
          stopReason,
          reason: null,
          detail: 'd',
        });
      } else {
        expect(() => completedEnd(outcome, stopReason)).toThrow();
      }
    });

    it('detail defaults to null', () => {
      expect(completedEnd('clear', 'clear').detail).toBeNull();
    });
  });

  describe('unfinishedEnd', () => {
    const statuses = ['failed', 'aborted', 'timed_out', 'unknown'] as const;
    const pairs = statuses.flatMap((s) => Object.values(EndReason).map((r) => [s, r] as const));
    it.each(pairs)('%s/%s has no outcome and no stop reason', (status, reason) => {
      expect(unfinishedEnd(status, reason)).toEqual({
        status,
        outcome: null,
        stopReason: null,
        reason,
        detail: null,
      });
    });
  });
});

describe('invariants 1 and 7: what a failed call does to the run', () => {
  const roles: RunRole[] = ['reviewer', 'refuter', 'fixer'];
  const expected: Record<Exclude<CallClass, 'ok'>, (role: RunRole) => [string, string]> = {
    malformed: () => ['failed', 'malformed'],
    refused: () => ['failed', 'refused'],
    missing_context: () => ['failed', 'missing_context'],
    model_drift: () => ['failed', 'model_drift'],
    failed: (role) => ['failed', `${role}_failed`],
    unknown: () => ['unknown', 'interrupted'],
    rate_limited: () => ['failed', 'retries_exhausted'],
    unavailable: () => ['failed', 'retries_exhausted'],
    timeout: () => ['failed', 'retries_exhausted'],
    truncated: () => ['failed', 'retries_exhausted'],
  };
  const cases = (Object.keys(expected) as Exclude<CallClass, 'ok'>[]).flatMap((cls) =>
    roles.flatMap((role) => [true, false].map((retried) => [cls, role, retried] as const)),
  );

  it.each(cases)('%s from the %s (retried: %s)', (cls, role, retried) => {
    const end = endForCallFailure(cls, role, 'boom', retried);
    const [status, reason] = expected[cls](role);
    expect(end).toMatchObject({ status, reason, outcome: null, stopReason: null });
    if (isRetryable(cls)) {
      expect(end.detail).toBe(`${cls}${retried ? ' after retries' : ''}: boom`);
    } else {
      expect(end.detail).toBe('boom');
    }
  });

  it('the table covers every class but ok, and only the four transient ones are retryable', () => {
    const failures = Object.values(CallClass).filter((c) => c !== 'ok');
    expect(Object.keys(expected).sort()).toEqual([...failures].sort());
    expect(failures.filter(isRetryable).sort()).toEqual([
      'rate_limited',
      'timeout',
      'truncated',
      'unavailable',
    ]);
  });
});
