/**
 * Removes the temp files that writers killed mid-write left behind
 * (atomic-file.ts: a temp file, fsync, rename; SIGKILL between the open and
 * the rename leaves the temp file, and nothing else ever removes it). A
 * review saves a hundred prompts of up to a few hundred KB each, so a run
 * killed mid-round can leave megabytes; `revloop gc` sweeps them.
 *
 * Only a file whose writer's pid is not a live process is removed: a live
 * writer's temp file is about to be renamed, and a pid reused by another
 * process keeps a leftover until that one ends (kept, never wrongly removed).
 */
import { type Dirent, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tempFileWriter } from './atomic-file.js';
import { pidAlive } from './pid.js';

export interface SweptTempFile {
  path: string;
  /** The pid of the writer that left it. */
  pid: number;
}

/** Directories below `dir` this deep are swept too (the state dir's prompts/, records/, keys/). */
const DEPTH = 2;

/**
 * Removes, under `dir` (to DEPTH levels, symbolic links not followed), every
 * temp file of atomic-file.ts whose writer `isAlive` says is gone; returns them.
 */
export function sweepTempFiles(dir: string, isAlive: (pid: number) => boolean = pidAlive): SweptTempFile[] {
  const out: SweptTempFile[] = [];
  const walk = (d: string, depth: number) => {
    let entries: Dirent[];
    try {
      entries = readdirSync(d, { withFileTypes: true });
    } catch {
      return; // not there (no run yet), or gone meanwhile
    }
    for (const e of entries) {
      const path = join(d, e.name);
      if (e.isDirectory()) {
        if (depth < DEPTH) walk(path, depth + 1);
        continue;
      }
      if (!e.isFile()) continue;
      const pid = tempFileWriter(e.name);
      if (pid === null || isAlive(pid)) continue;
      rmSync(path, { force: true });
      out.push({ path, pid });
    }
  };
  walk(dir, 0);
  return out;
}
