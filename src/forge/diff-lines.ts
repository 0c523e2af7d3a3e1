/**
 * Which lines of a pull request's diff a forge accepts a comment on: the
 * new-side lines inside each hunk of the file's patch (added and context
 * lines). A comment on any other line is refused by the forge, so the
 * planner folds such findings into the summary instead.
 */

/** One hunk's new-side lines, first..last inclusive. */
export interface LineSpan {
  first: number;
  last: number;
}

export type CommentableLines = ReadonlyMap<string, readonly LineSpan[]>;

/** A hunk header: its old-side start, then its new-side start. */
const HUNK = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/;

/** New-side spans of a unified patch (the `patch` field GitHub returns per file). */
export function patchSpans(patch: string): LineSpan[] {
  const spans: LineSpan[] = [];
  let next = 0;
  let cur: LineSpan | null = null;
  for (const line of patch.split('\n')) {
    const h = HUNK.exec(line);
    if (h) {
      if (cur && cur.last >= cur.first) spans.push(cur);
      next = Number(h[2]);
      cur = { first: next, last: next - 1 };
      continue;
    }
    if (!cur || !(line.startsWith(' ') || line.startsWith('+'))) continue;
    cur.last = next;
    next++;
  }
  if (cur && cur.last >= cur.first) spans.push(cur);
  return spans;
}

/**
 * The unchanged (context) lines of a unified patch: each one's new-side line
 * number with its old-side one. GitLab places a comment on such a line only
 * with both numbers (its discussions API); an added line takes the new one
 * alone.
 */
export function unchangedLines(patch: string): Map<number, number> {
  const out = new Map<number, number>();
  let oldNext = 0;
  let newNext = 0;
  let inHunk = false;
  for (const line of patch.split('\n')) {
    const h = HUNK.exec(line);
    if (h) {
      oldNext = Number(h[1]);
      newNext = Number(h[2]);
      inHunk = true;
      continue;
    }
    if (!inHunk) continue;
    if (line.startsWith(' ')) out.set(newNext++, oldNext++);
    else if (line.startsWith('+')) newNext++;
    else if (line.startsWith('-')) oldNext++;
  }
  return out;
}

/** The span holding both ends of `line..endLine`, or null when the range is not inside one hunk. */
export function spanOf(lines: CommentableLines, path: string, line: number, endLine = line): LineSpan | null {
  for (const s of lines.get(path) ?? []) if (line >= s.first && endLine <= s.last) return s;
  return null;
}
