/**
 * Where a line of `path` at `from` lies at `to`, from the Git port's hunks:
 * null when the line was changed or deleted in between, or the file is gone.
 * The loop asks about ranges of lines, not one line's place (src/loop/run/line-facts.ts);
 * tests ask one line at a time. Hunks are git's `-U0` hunks, where a hunk with
 * count 0 on one side sits *after* the line its start names (so `-3,0` inserts
 * after old line 3, `+0,0` deletes at the top).
 */
import type { FileHunks, Git, Hunk } from '../../src/ports/git.js';

export async function mapLine(
  git: Git,
  repo: string,
  from: string,
  to: string,
  path: string,
  line: number,
): Promise<number | null> {
  const [files, changed] = await Promise.all([git.hunks(repo, from, to), git.changedFiles(repo, from, to)]);
  const file = files.find((f) => f.oldPath === path);
  if (file) {
    // An added file has no old side.
    const status = changed.find((c) => c.oldPath === path)?.status;
    return status === 'added' ? null : mapLineThrough(file, line, status === 'deleted');
  }
  // Not in the diff: unchanged if it exists at all.
  const exists = (await git.readFile(repo, from, path)) !== null;
  return exists && Number.isInteger(line) && line >= 1 ? line : null;
}

/** Last old/new line at or before a hunk's end, for lines below it. */
const oldLast = (h: Hunk): number => (h.oldCount === 0 ? h.oldStart : h.oldStart + h.oldCount - 1);
const newLast = (h: Hunk): number => (h.newCount === 0 ? h.newStart : h.newStart + h.newCount - 1);

/**
 * Maps 1-based `line` of the old side of `file` to the new side; null when
 * the line was changed or removed, or the file is binary or was deleted.
 */
export function mapLineThrough(file: FileHunks, line: number, deleted: boolean): number | null {
  if (deleted || file.binary || !Number.isInteger(line) || line < 1) return null;
  let mapped = line;
  for (const h of file.hunks) {
    if (h.oldCount > 0 && line >= h.oldStart && line <= oldLast(h)) return null;
    // Hunks are ordered; the last one above the line fixes its offset.
    if (line > oldLast(h)) mapped = line - oldLast(h) + newLast(h);
    else break;
  }
  return mapped;
}
