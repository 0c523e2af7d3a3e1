/**
 * Zero-context line hunks between two texts, in `git diff -U0`'s convention
 * (a side with count 0 sits after the line its start names), from a longest
 * common subsequence. The simulated repository's files are a few dozen lines,
 * so the quadratic table costs nothing.
 */
import type { Hunk } from '../../src/ports/git.js';

export function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

export function lineHunks(oldText: string, newText: string): Hunk[] {
  const a = splitLines(oldText);
  const b = splitLines(newText);
  const n = a.length;
  const m = b.length;
  // lcs[i][j]: longest common subsequence of a[i..] and b[j..].
  const lcs: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--)
      lcs[i]![j] = a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
  const hunks: Hunk[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) {
      i++;
      j++;
      continue;
    }
    const i0 = i;
    const j0 = j;
    while ((i < n || j < m) && !(i < n && j < m && a[i] === b[j])) {
      if (j >= m || (i < n && lcs[i + 1]![j]! >= lcs[i]![j + 1]!)) i++;
      else j++;
    }
    const oldCount = i - i0;
    const newCount = j - j0;
    hunks.push({
      oldStart: oldCount === 0 ? i0 : i0 + 1,
      oldCount,
      newStart: newCount === 0 ? j0 : j0 + 1,
      newCount,
    });
  }
  return hunks;
}

/** The `-U0` text of one file's change: what prompts carry and what the digest hashes. */
export function fileDiffText(path: string, oldText: string | null, newText: string | null): string {
  const a = splitLines(oldText ?? '');
  const b = splitLines(newText ?? '');
  const out = [`diff --git a/${path} b/${path}`];
  out.push(oldText === null ? '--- /dev/null' : `--- a/${path}`);
  out.push(newText === null ? '+++ /dev/null' : `+++ b/${path}`);
  for (const h of lineHunks(oldText ?? '', newText ?? '')) {
    out.push(`@@ -${h.oldStart},${h.oldCount} +${h.newStart},${h.newCount} @@`);
    for (let k = 0; k < h.oldCount; k++) out.push(`-${a[h.oldStart - 1 + k]}`);
    for (let k = 0; k < h.newCount; k++) out.push(`+${b[h.newStart - 1 + k]}`);
  }
  return `${out.join('\n')}\n`;
}
