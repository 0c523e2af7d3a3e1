/**
 * The run state machine (invariant 2): status and outcome kept apart. Every
 * transition goes through one function that checks its precondition.
 */
import type { EndReason, Outcome, RunStatus, StopReason } from './types.js';
import { isTerminal } from './types.js';

const allowed: Record<RunStatus, readonly RunStatus[]> = {
  queued: ['running', 'aborted', 'unknown', 'failed'],
  running: ['running', 'completed', 'failed', 'aborted', 'timed_out', 'unknown'],
  completed: [],
  failed: [],
  aborted: [],
  timed_out: [],
  unknown: [],
};

export class IllegalTransitionError extends Error {
  constructor(
    readonly from: RunStatus,
    readonly to: RunStatus,
  ) {
    super(`illegal run transition ${from} -> ${to}`);
  }
}

export function assertTransition(from: RunStatus, to: RunStatus): void {
  if (!allowed[from].includes(to)) throw new IllegalTransitionError(from, to);
}

export type TerminalEnd =
  | { status: 'completed'; outcome: Outcome; stopReason: StopReason; reason: null; detail: string | null }
  | {
      status: Exclude<RunStatus, 'queued' | 'running' | 'completed'>;
      outcome: null;
      stopReason: null;
      reason: EndReason;
      detail: string | null;
    };

/** Only `completed` carries an outcome and a stop reason. */
export const completedEnd = (
  outcome: Outcome,
  stopReason: StopReason,
  detail: string | null = null,
): TerminalEnd => {
  if ((outcome === 'clear') !== (stopReason === 'clear')) {
    throw new Error(`outcome ${outcome} cannot stop for ${stopReason}`);
  }
  return { status: 'completed', outcome, stopReason, reason: null, detail };
};

export const unfinishedEnd = (
  status: Exclude<RunStatus, 'queued' | 'running' | 'completed'>,
  reason: EndReason,
  detail: string | null = null,
): TerminalEnd => ({ status, outcome: null, stopReason: null, reason, detail });

export { isTerminal };
