/**
 * The fixer's version of a blocker's lines, as a one-click suggestion on
 * the pull request's head: the hunks of head..fix that touch the blocker's
 * lines, widened to whole hunks, when they change at most `limit` lines.
 * Pure: the hunks (git diff -U0) and both texts are passed in.
 */
import type { FileHunks, Hunk } from '../ports/git.js';

/** The last old line a hunk covers; an insertion (count 0) sits after its start line. */
const oldEnd = (h: Hunk): number => (h.oldCount === 0 ? h.oldStart : h.oldStart + h.oldCount - 1);

export function suggestLines(
  file: FileHunks | undefined,
  newText: string,
  range: { line: number; endLine: number },
  limit: number,
): { line: number; endLine: number; text: string } | null {
  if (!file || file.binary || file.path !== file.oldPath) return null;
  const touches = (h: Hunk) =>
    h.oldCount === 0
      ? h.oldStart >= range.line && h.oldStart <= range.endLine
      : h.oldStart <= range.endLine && oldEnd(h) >= range.line;
  const hit = file.hunks.filter(touches);
  if (!hit.length) return null;
  const changed = hit.reduce((n, h) => n + Math.max(h.oldCount, h.newCount), 0);
  if (changed > limit) return null;
  const first = Math.min(range.line, ...hit.filter((h) => h.oldCount > 0).map((h) => h.oldStart));
  const last = Math.max(range.endLine, ...hit.map(oldEnd));
  const before = file.hunks.filter((h) => !touches(h) && oldEnd(h) < first);
  const shift = before.reduce((n, h) => n + h.newCount - h.oldCount, 0);
  const grow = hit.reduce((n, h) => n + h.newCount - h.oldCount, 0);
  const lines = newText.split('\n');
  const text = lines.slice(first + shift - 1, last + shift + grow).join('\n');
  return { line: first, endLine: last, text };
}
