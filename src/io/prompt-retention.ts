/**
 * Retention of stored prompts (`revloop gc --prompts-older-than <age>`).
 *
 * Prompts are kept for audit (`eval replay` sends them again) and never
 * needed to resume, replay or verify a run: replay recomputes decisions from
 * the recorded verdicts, which carry the prompt's digest, not its text. A
 * chunked review stores its whole diff again for every reviewer and round,
 * so on a runner that keeps its state dir the directory grows with every big
 * change ever reviewed. gc prunes it only when asked, by age:
 *
 * - a prompt's age is its file's mtime, which a save refreshes when the
 *   prompt is already stored (prompt-files.ts): the last time any run used
 *   it, not the first;
 * - a prompt a recent run recorded a verdict on is kept whatever its mtime
 *   says (the caller's `keep`: the verdicts of runs still live or ended
 *   within the age), so a state dir copied without its mtimes loses nothing
 *   recent.
 *
 * A run that saves a prompt between this sweep's stat and its unlink loses
 * that file: its verdict then names a prompt `eval replay` counts as missing,
 * never a wrong one (content addressing), and nothing of the run depends on it.
 */
import { type Dirent, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { promptsDir } from './prompt-files.js';

export interface PrunedPrompts {
  /** Stored prompts removed. */
  removed: number;
  /** Their bytes. */
  bytes: number;
  /** Stored prompts left: used since the cutoff, or named by a kept run's verdict. */
  kept: number;
}

/** A stored prompt's file name: the sha256 of its bytes (temp files and anything else are not touched). */
const STORED = /^([0-9a-f]{64})\.txt$/;

/**
 * Removes the stored prompts of `stateDir` last used before `cutoffMs` (epoch
 * ms) whose digest is not in `keep`.
 */
export function prunePrompts(stateDir: string, cutoffMs: number, keep: ReadonlySet<string>): PrunedPrompts {
  const out: PrunedPrompts = { removed: 0, bytes: 0, kept: 0 };
  const dir = promptsDir(stateDir);
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return out; // no prompt saved yet
  }
  for (const e of entries) {
    const digest = e.isFile() ? STORED.exec(e.name)?.[1] : undefined;
    if (!digest) continue;
    const path = join(dir, e.name);
    const st = statSync(path, { throwIfNoEntry: false });
    if (!st) continue; // removed meanwhile
    if (keep.has(digest) || st.mtimeMs >= cutoffMs) {
      out.kept++;
      continue;
    }
    rmSync(path, { force: true });
    out.removed++;
    out.bytes += st.size;
  }
  return out;
}
