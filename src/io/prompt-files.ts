/**
 * Prompts kept for audit (`eval replay` sends them again), content-addressed:
 * `<dir>/<digest>.txt`, each written the one way revloop writes a file
 * (atomic-file.ts). A large review saves a hundred prompts in a second (P9:
 * 106 chunk prompts), so what every save used to repeat is done once:
 * - which digests are already stored is one directory listing, not a stat of
 *   each path (those stats waited on the directory behind the renames still
 *   under way: a fifth of P9's review stage);
 * - the directory is checked, and made, once;
 * - renames that finish together share one fsync of the directory (a group
 *   commit of renames): a save resolves only after an fsync of the directory
 *   that began after its own rename, so a resolved save is on disk.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fsyncDirAsync, prepareTarget, writeFileAtomicAsync } from './atomic-file.js';

/** Where a state directory keeps its prompts. */
export const promptsDir = (stateDir: string): string => join(stateDir, 'prompts');

/** The stored prompt of `digest`, if it was saved. */
export const promptPath = (stateDir: string, digest: string): string =>
  join(promptsDir(stateDir), `${digest}.txt`);

const NAME = /^([0-9a-f]{64})\.txt$/;

export class PromptFiles {
  private stored: Set<string> | undefined;
  private prepared = false;
  /** The directory fsync under way, and the one queued behind it for renames that finished meanwhile. */
  private syncing: Promise<void> | undefined;
  private queued: Promise<void> | undefined;
  private readonly dir: string;

  constructor(
    /** The state directory; its prompts go to promptsDir(stateDir). */
    stateDir: string,
    /** Replaces the whole write (the simulation's synchronous writer); the listing still applies. */
    private readonly writeFile?: (path: string, data: string | Uint8Array) => Promise<void>,
  ) {
    this.dir = promptsDir(stateDir);
  }

  /** Saves `data` under `digest` unless a file of that digest is already stored. */
  async save(digest: string, data: string | Uint8Array): Promise<void> {
    const stored = this.listing();
    if (stored.has(digest)) return;
    const path = join(this.dir, `${digest}.txt`);
    if (this.writeFile) await this.writeFile(path, data);
    else {
      if (!this.prepared) {
        prepareTarget(path);
        this.prepared = true;
      }
      await writeFileAtomicAsync(path, data, { prepared: true, syncDir: () => this.syncDir() });
    }
    stored.add(digest);
  }

  /**
   * The digests stored when the first save asked (a missing directory holds none). Read
   * synchronously, once: a save then starts its write in the same turn it was asked, as the
   * simulation's writer needs (its schedules must not wait on the thread pool).
   */
  private listing(): Set<string> {
    if (!this.stored) {
      let names: string[] = [];
      try {
        names = readdirSync(this.dir);
      } catch {
        // No directory yet: nothing stored; the first write makes it.
      }
      this.stored = new Set(names.flatMap((n) => NAME.exec(n)?.[1] ?? []));
    }
    return this.stored;
  }

  private syncDir(): Promise<void> {
    if (!this.syncing) {
      const run = fsyncDirAsync(this.dir).finally(() => {
        this.syncing = undefined;
      });
      this.syncing = run;
      return run;
    }
    // The fsync under way may have begun before this rename: wait for the next one.
    this.queued ??= this.syncing
      .catch(() => undefined)
      .then(() => {
        this.queued = undefined;
        return this.syncDir();
      });
    return this.queued;
  }
}
