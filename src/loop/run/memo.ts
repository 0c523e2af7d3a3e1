/**
 * The one memo of reads whose answer cannot change (facts about commit ids).
 * A failed read is forgotten, so the next asker tries again, unless the memo
 * is told to keep failures (then every asker sees the same error).
 */
export class Memo<T> {
  private readonly reads = new Map<string, Promise<T>>();

  constructor(private readonly keepFailures = false) {}

  get(key: string, read: () => Promise<T>): Promise<T> {
    return this.reads.get(key) ?? this.put(key, read());
  }

  /** Stores `p` under `key`, replacing what was there (a fresh read of the same fact). */
  put(key: string, p: Promise<T>): Promise<T> {
    this.reads.set(key, p);
    if (this.keepFailures) p.catch(() => undefined);
    else
      p.catch(() => {
        if (this.reads.get(key) === p) this.reads.delete(key);
      });
    return p;
  }

  /** The read stored under `key`, if any (nothing is read). */
  peek(key: string): Promise<T> | undefined {
    return this.reads.get(key);
  }

  /** Stores `p` unless the key already has a read. */
  seed(key: string, p: Promise<T>): void {
    if (!this.reads.has(key)) this.put(key, p);
  }
}
