/**
 * The verdicts of a chunked review round, recorded a batch at a time (P9):
 * one Store transaction, so one fsync of the ledger, per VERDICTS_PER_COMMIT
 * finished calls instead of one per call. On a 2,000-file diff of 106 chunk
 * calls, those fsyncs were about a third of the controller's time.
 *
 * What a batch changes, and why it loses nothing the design asks to keep:
 * - A verdict is noted in the run's ledger cache when its call ends (so the
 *   budget check before the next call counts its cost), and is in the ledger
 *   once its batch is written. Nothing reads it from the ledger before the
 *   round ends, and the round awaits every batch (`flush`) before it returns
 *   or fails: the stage's result and completion are recorded only after
 *   every verdict they name (invariant 5).
 * - Each prompt's save is awaited before the batch naming its digest is
 *   written, so a verdict in the ledger always has its prompt on disk.
 * - A controller killed before a batch is written loses at most that batch's
 *   verdicts: their attempts are `started` in the ledger (`unknown` on
 *   resume), and the resume asks those calls again under the same call keys,
 *   as it does for calls that were under way. The same holds for the cost of
 *   those calls, as for calls under way (so the window is at most
 *   VERDICTS_PER_COMMIT calls, like a larger `review.concurrency`).
 */
import type { Lease } from '../core/ledger.js';
import type { Store, VerdictToRecord } from '../ports/store.js';
import type { LedgerCache } from './ledger-cache.js';

/** Finished calls per ledger transaction: the most a kill -9 makes a resume ask again. */
export const VERDICTS_PER_COMMIT = 16;

interface Queued {
  item: VerdictToRecord;
  /** The save of the call's prompt. */
  saved: Promise<void>;
}

export class VerdictBatch {
  private queued: Queued[] = [];
  private written: Promise<void> = Promise.resolve();
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
   * Queues a finished call's verdict; a full batch starts being written, and the
   * caller then waits for the batch before it (so at most two batches of prompts
   * are being saved at once: the calls do not run ahead of the disk without
   * bound). Rejects with the fault of a batch written before (a lost lease): no
   * later call starts.
   */
  async add(item: VerdictToRecord, saved: Promise<void>): Promise<void> {
    if (this.fault) throw this.fault.error;
    this.queued.push({ item, saved });
    if (this.queued.length < this.size) return;
    const before = this.written;
    this.write().catch(() => undefined);
    await before;
  }

  /** Writes what is queued and waits until every batch is in the ledger; throws the first fault. */
  flush(): Promise<void> {
    return this.write();
  }

  private write(): Promise<void> {
    const batch = this.queued;
    this.queued = [];
    // Batches are written one after the other, in the order their calls ended.
    this.written = this.written.then(async () => {
      if (batch.length === 0) return;
      try {
        // The prompts are on disk before the ledger names their digests.
        await Promise.all(batch.map((q) => q.saved));
        const got = await this.ctx.deps.store.recordVerdicts(
          this.lease,
          batch.map((q) => q.item),
        );
        for (const g of got) this.ctx.ledger.noteVerdict(g.verdict);
      } catch (error) {
        this.fault ??= { error };
        throw error;
      }
    });
    return this.written;
  }
}
