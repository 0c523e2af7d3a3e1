/**
 * Line mapping through zero-context hunks. Pure: the hunks come from
 * `git diff -U0`, where a hunk with count 0 on one side sits *after* the line
 * its start names (so `-3,0` inserts after old line 3, `+0,0` deletes at the top).
 */
import type { FileHunks, Hunk } from '../ports/git.js';

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
