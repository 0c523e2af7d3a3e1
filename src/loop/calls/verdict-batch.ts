/**
 * The verdicts of a chunked review round, recorded by group commit (decision: one transaction per save batch): a
 * finished call's verdict is written at once when no write is under way;
 * verdicts that finish while one is under way go together in the next, up to
 * VERDICTS_PER_COMMIT to a Store transaction (one fsync of the ledger). With
 * instant reviewers (106 chunk calls of a 2,000-file diff) the per-call fsyncs
 * were about a third of the controller's time and now share a few commits;
 * with real reviewers, whose calls end seconds apart, each verdict is written
 * alone the moment its call ends, as before: nothing waits for a batch to fill.
 *
 * What it keeps:
 * - A verdict is noted in the run's ledger cache when its call ends (so the
 *   budget check before the next call counts its cost). The round awaits
 *   every write (`flush`) before it returns or fails: the stage's result and
 *   completion are recorded only after every verdict they name (invariant 5).
 * - Each prompt's save is awaited before the transaction naming its digest,
 *   so a verdict in the ledger always has its prompt on disk.
 * - A controller killed mid-write loses only the verdicts of calls that ended
 *   during that one commit: their attempts are `started` (`unknown` on
 *   resume), and the resume asks those calls again under the same call keys,
 *   as it does for calls that were under way.
 * - Memory: a call that finds a full batch already waiting waits for the
 *   writes, so the calls never run ahead of the disk by more than two batches.
 */
import type { Lease } from '../../core/ledger.js';
import type { Store, VerdictToRecord } from '../../ports/store.js';
import type { LedgerCache } from './ledger-cache.js';

/** The most verdicts one transaction carries. */
export const VERDICTS_PER_COMMIT = 16;

interface Queued {
  item: VerdictToRecord;
  /** The save of the call's prompt. */
  saved: Promise<void>;
}

export class VerdictBatch {
  private queued: Queued[] = [];
  /** The writer: drains the queue a transaction at a time; settled when idle. */
  private written: Promise<void> = Promise.resolve();
  private writing = false;
  private fault: { error: unknown } | undefined;

  constructor(
    /** What it uses of a RunContext: the store's batch write, the ledger cache's note. */
    private readonly ctx: {
      deps: { store: Pick<Store, 'recordVerdicts'> };
      ledger: Pick<LedgerCache, 'noteVerdict'>;
    },
    private readonly lease: Lease,
    private readonly size = VERDICTS_PER_COMMIT,
  ) {}

  /**
   * Queues a finished call's verdict and starts the writer if it is idle.
   * Rejects with the fault of an earlier write (a lost lease): no later call starts.
   */
  async add(item: VerdictToRecord, saved: Promise<void>): Promise<void> {
    if (this.fault) throw this.fault.error;
    this.queued.push({ item, saved });
    if (!this.writing) this.startWriter();
    if (this.queued.length >= this.size) await this.written;
  }

  /** Waits until every queued verdict is in the ledger; throws the first fault. */
  async flush(): Promise<void> {
    if (this.fault) throw this.fault.error;
    if (!this.writing && this.queued.length > 0) this.startWriter();
    await this.written;
  }

  private startWriter(): void {
    this.writing = true;
    this.written = this.drain().finally(() => {
      this.writing = false;
    });
    this.written.catch(() => undefined);
  }

  /** Writes the queue in the order the calls ended, a transaction of up to `size` at a time. */
  private async drain(): Promise<void> {
    try {
      while (this.queued.length > 0) {
        const batch = this.queued.splice(0, this.size);
        // The prompts are on disk before the ledger names their digests.
        await Promise.all(batch.map((q) => q.saved));
        const got = await this.ctx.deps.store.recordVerdicts(
          this.lease,
          batch.map((q) => q.item),
        );
        for (const g of got) this.ctx.ledger.noteVerdict(g.verdict);
      }
    } catch (error) {
      this.fault ??= { error };
      throw error;
    }
  }
}
