/**
 * Invariant 12, kept by one owner: the rounds, wall time and cost frozen at
 * admission. No agent output reaches it; only the recorded spend and the clock.
 */
import { costSpent } from '../../core/budget.js';
import { unfinishedEnd } from '../../core/run-state.js';
import type { Snapshot } from '../../core/types.js';
import type { Clock } from '../../ports/clock.js';

export class RunBudget {
  constructor(
    private readonly budgets: Snapshot['budgets'],
    /** When round 1 began (recorded), or when this owner took a run that had not begun. */
    private readonly startedAt: number,
    private readonly clock: Clock,
    /** The recorded spend (the ledger cache's sum). */
    private readonly spent: () => number,
    /** How a spent budget ends the run (a RunEnd, thrown). */
    private readonly end: (e: ReturnType<typeof unfinishedEnd>) => Error,
  ) {}

  wallDeadline(): number {
    return this.startedAt + this.budgets.wallSeconds * 1000;
  }

  /** Running out mid-review ends the run with no outcome. */
  check(): void {
    if (this.clock.now() >= this.wallDeadline()) {
      throw this.end(
        unfinishedEnd('timed_out', 'budget_wall', `wall budget of ${this.budgets.wallSeconds}s spent`),
      );
    }
    const spent = this.spent();
    if (costSpent(spent, this.budgets)) {
      throw this.end(
        unfinishedEnd(
          'aborted',
          'budget_cost',
          `cost budget of $${this.budgets.costUsd} spent ($${spent.toFixed(4)})`,
        ),
      );
    }
  }
}
