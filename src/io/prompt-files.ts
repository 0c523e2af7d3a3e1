/**
 * Prompts kept for audit (`eval replay` sends them again), content-addressed:
 * `<dir>/<digest>.txt`, each written the one way revloop writes a file
 * (atomic-file.ts). A large review saves a hundred prompts in a second (bench large-change:
 * 106 chunk prompts), so what every save used to repeat is done once or off
 * the event loop:
 * - whether a digest is already stored is asked without blocking (a
 *   synchronous stat of each path waited on the directory behind the renames
 *   still under way: a fifth of the large change's review stage), and per path, so the cost
 *   follows the run's prompts, not every prompt the state directory holds;
 * - the directory is checked, and made, once;
 * - renames that finish together share one fsync of the directory (a group
 *   commit of renames): a save resolves only after an fsync of the directory
 *   that began after its own rename, so a resolved save is on disk.
 */
import { stat, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { fsyncDirAsync, prepareTarget, writeFileAtomicAsync } from './atomic-file.js';

/** Where a state directory keeps its prompts. */
export const promptsDir = (stateDir: string): string => join(stateDir, 'prompts');

/** The stored prompt of `digest`, if it was saved. */
export const promptPath = (stateDir: string, digest: string): string =>
  join(promptsDir(stateDir), `${digest}.txt`);

export interface PromptFilesOptions {
  /** Replaces the whole write (the simulation's synchronous writer). */
  writeFile?: ((path: string, data: string | Uint8Array) => Promise<void>) | undefined;
  /** The fsync of the directory that renames share (a test holds it to pin the order). */
  fsyncDir?: (dir: string) => Promise<void>;
}

export class PromptFiles {
  private prepared = false;
  /** The directory fsync under way, and the one queued behind it for renames that finished meanwhile. */
  private syncing: Promise<void> | undefined;
  private queued: Promise<void> | undefined;
  private readonly dir: string;

  constructor(
    /** The state directory; its prompts go to promptsDir(stateDir). */
    stateDir: string,
    private readonly opts: PromptFilesOptions = {},
  ) {
    this.dir = promptsDir(stateDir);
  }

  /**
   * Saves `data` under `digest` unless a file of that digest is already stored;
   * a stored one's mtime is set to now, so that gc's retention ages a prompt
   * from its last use (prompt-retention.ts).
   */
  async save(digest: string, data: string | Uint8Array): Promise<void> {
    const path = join(this.dir, `${digest}.txt`);
    if (this.opts.writeFile) return this.opts.writeFile(path, data);
    if (await touchIfStored(path)) return;
    if (!this.prepared) {
      prepareTarget(path);
      this.prepared = true;
    }
    await writeFileAtomicAsync(path, data, { prepared: true, syncDir: () => this.syncDir() });
  }

  private syncDir(): Promise<void> {
    if (!this.syncing) {
      const run = (this.opts.fsyncDir ?? fsyncDirAsync)(this.dir).finally(() => {
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

/**
 * Whether `path` is stored; if so its times are set to now (one call, no stat
 * before it). A stored file this user may not set the times of (another
 * user's, in a shared state dir) is still stored: asked again by stat.
 */
const touchIfStored = (path: string): Promise<boolean> => {
  const now = new Date();
  return utimes(path, now, now).then(
    () => true,
    (err: NodeJS.ErrnoException) =>
      err.code === 'ENOENT'
        ? false
        : stat(path).then(
            (s) => s.isFile(),
            () => false,
          ),
  );
};
