/** What a call that did not yield a reply does to the run (DESIGN.md failure-class table). */
import { type TerminalEnd, unfinishedEnd } from './run-state.js';
import type { CallClass, RunRole } from './types.js';

const FAILED_BY_ROLE = {
  reviewer: 'reviewer_failed',
  refuter: 'refuter_failed',
  fixer: 'fixer_failed',
} as const satisfies Record<RunRole, string>;

export function endForCallFailure(
  cls: Exclude<CallClass, 'ok'>,
  role: RunRole,
  detail: string,
  retried: boolean,
): TerminalEnd {
  switch (cls) {
    case 'malformed':
      return unfinishedEnd('failed', 'malformed', detail);
    case 'refused':
      return unfinishedEnd('failed', 'refused', detail);
    case 'missing_context':
      return unfinishedEnd('failed', 'missing_context', detail);
    case 'model_drift':
      return unfinishedEnd('failed', 'model_drift', detail);
    case 'failed':
      // Each role its own reason: a broken refuter or fixer is not the reviewers' failure.
      return unfinishedEnd('failed', FAILED_BY_ROLE[role], detail);
    case 'unknown':
      return unfinishedEnd('unknown', 'interrupted', detail);
    case 'rate_limited':
    case 'unavailable':
    case 'timeout':
    case 'truncated':
      return unfinishedEnd(
        'failed',
        'retries_exhausted',
        `${cls}${retried ? ' after retries' : ''}: ${detail}`,
      );
  }
}
