/**
 * What the ledger holds of the run, as this owner has seen it: verdicts by
 * call key, the attempts made of each call, the completed stages. Loaded once
 * when the driver takes the run, then kept in step by the writes it makes, so
 * a resumed run skips every completed stage and reuses every recorded verdict
 * without asking the store again.
 */
import { spendOf } from '../../core/budget.js';
import type { AttemptRow } from '../../core/ledger.js';
import { isStageRow, type StageRow, type StageRowOf, type VerdictRow } from '../../core/stage-results.js';
import type { Stage } from '../../core/types.js';

export class LedgerCache {
  private readonly verdicts = new Map<string, VerdictRow>();
  /** Each call's latest recorded attempt, by call key. */
  private readonly attempts = new Map<string, AttemptRow>();
  private readonly stages = new Map<string, StageRow>();

  constructor(recorded: { verdicts: VerdictRow[]; attempts: AttemptRow[]; stages: StageRow[] }) {
    for (const v of recorded.verdicts) this.verdicts.set(v.callKey, v);
    for (const a of recorded.attempts)
      if (a.attemptNo > (this.attempts.get(a.callKey)?.attemptNo ?? 0)) this.attempts.set(a.callKey, a);
    for (const s of recorded.stages) this.noteStage(s);
  }

  verdict(callKey: string): VerdictRow | undefined {
    return this.verdicts.get(callKey);
  }

  /** A verdict the store just recorded (or returned as the one recorded first). */
  noteVerdict(v: VerdictRow): void {
    this.verdicts.set(v.callKey, v);
  }

  /** Invariant 12: the recorded spend, from every verdict of the run (the ledger's own sum). */
  spent(): number {
    return spendOf([...this.verdicts.values()].map((v) => v.costUsd));
  }

  /** Attempts of a call recorded before this owner took the run. */
  attemptsOf(callKey: string): number {
    return this.attempts.get(callKey)?.attemptNo ?? 0;
  }

  /** The call's latest attempt recorded before this owner took the run. */
  lastAttempt(callKey: string): AttemptRow | undefined {
    return this.attempts.get(callKey);
  }

  /** The recorded row of `stage` in `round`, typed by stage. */
  stage<S extends Stage>(round: number, stage: S): StageRowOf<S> | undefined {
    const row = this.stages.get(`${round}:${stage}`);
    return row && isStageRow(row, stage) ? row : undefined;
  }

  noteStage(row: StageRow): void {
    this.stages.set(`${row.round}:${row.stage}`, row);
  }
}
