/**
 * The part of a large diff a refuter or a fixer is shown: a review
 * sends a diff over `review.chunkBytes` in chunks, and the refuter of one
 * claim and the fixer of a few blockers need only the files those name, not a
 * 20 MB prompt. A file's whole section is taken when it fits; a file alone
 * over the limit gives the hunks that hold the named lines (or the nearest
 * hunk); files are taken in the order asked while the limit allows, and those
 * left out are named. A file whose needed hunk alone is over the limit cannot
 * be shown at all: the caller fails the run `missing_context`, as the review
 * does. A diff that fits the limit is not focused (the caller sends it whole,
 * so its prompts and call keys are those of before). Pure over the sections
 * the git layer cut (git/diff-sections.ts).
 */
import type { DiffSection } from './chunks.js';

export interface FocusWanted {
  path: string;
  /** Line ranges at the revision (a finding's line..endLine) whose hunks matter most. */
  lines: [number, number][];
}

export type FocusedDiff =
  | { ok: true; text: string; files: string[]; omitted: string[] }
  | { ok: false; path: string; bytes: number };

export function focusDiff(
  sections: readonly DiffSection[],
  wanted: readonly FocusWanted[],
  limit: number,
): FocusedDiff {
  const byPath = new Map(sections.map((s) => [s.path, s]));
  const texts: string[] = [];
  const files: string[] = [];
  const omitted: string[] = [];
  let left = limit;
  for (const w of mergeWanted(wanted)) {
    const s = byPath.get(w.path);
    // Not in the diff (a claim on an unchanged file): nothing of the diff to show for it.
    if (!s) continue;
    const text = s.bytes <= limit ? s.text : piecesFor(s, w.lines, limit);
    if (text === null) return { ok: false, path: s.path, bytes: smallestNeeded(s, w.lines) };
    const bytes = Buffer.byteLength(text, 'utf8');
    if (bytes > left) {
      omitted.push(s.path);
      continue;
    }
    texts.push(text);
    files.push(s.path);
    left -= bytes;
  }
  return { ok: true, text: texts.join(''), files, omitted };
}

/** One entry per path, in first-asked order, with every range asked for it. */
function mergeWanted(wanted: readonly FocusWanted[]): FocusWanted[] {
  const out = new Map<string, FocusWanted>();
  for (const w of wanted) {
    const had = out.get(w.path);
    if (had) had.lines.push(...w.lines);
    else out.set(w.path, { path: w.path, lines: [...w.lines] });
  }
  return [...out.values()];
}

/** The hunk pieces of a file over the limit that hold the lines (the nearest one when none does), or null when one alone is over it. */
function piecesFor(s: DiffSection, lines: [number, number][], limit: number): string | null {
  const pieces = chosenPieces(s, lines);
  if (pieces.some((p) => p.bytes > limit)) return null;
  const kept: string[] = [];
  let left = limit;
  for (const p of pieces) {
    if (p.bytes > left) break;
    // Each piece repeats the file's header; after the first, its hunk alone follows.
    kept.push(kept.length === 0 ? p.text : p.text.slice(hunkStart(p.text)));
    left -= p.bytes;
  }
  return kept.join('');
}

function hunkStart(piece: string): number {
  return piece.startsWith('@@ ') ? 0 : piece.indexOf('\n@@ ') + 1;
}

function smallestNeeded(s: DiffSection, lines: [number, number][]): number {
  return Math.max(...chosenPieces(s, lines).map((p) => p.bytes));
}

function chosenPieces(s: DiffSection, lines: [number, number][]): { text: string; bytes: number }[] {
  const pieces = s.pieces ?? [{ text: s.text, bytes: s.bytes }];
  const spans = pieces.map((p) => newSideSpan(p.text));
  const hit = pieces.filter((_, i) => lines.some(([a, b]) => overlaps(spans[i], a, b)));
  if (hit.length > 0 || lines.length === 0) return hit.length > 0 ? hit : pieces.slice(0, 1);
  // No hunk holds the lines: the nearest one shows the change around them.
  const [a] = lines[0] as [number, number];
  let best = 0;
  spans.forEach((sp, i) => {
    if (distance(sp, a) < distance(spans[best], a)) best = i;
  });
  return [pieces[best] as { text: string; bytes: number }];
}

/** Lines `start..end` at the revision that a hunk spans (`@@ -a,b +c,d @@`). */
function newSideSpan(piece: string): [number, number] | null {
  const m = /\n@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@/.exec(`\n${piece}`);
  if (!m) return null;
  const start = Number(m[1]);
  const count = m[2] === undefined ? 1 : Number(m[2]);
  return [start, start + Math.max(count, 1) - 1];
}

function overlaps(span: [number, number] | null | undefined, a: number, b: number): boolean {
  return !!span && span[0] <= Math.max(a, b) && Math.min(a, b) <= span[1];
}

function distance(span: [number, number] | null | undefined, line: number): number {
  if (!span) return Number.POSITIVE_INFINITY;
  return line < span[0] ? span[0] - line : line > span[1] ? line - span[1] : 0;
}
