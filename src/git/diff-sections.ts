/**
 * Splits a canonical diff (canonical-diff.ts: `--no-renames`, quoted paths)
 * into one section per file, in diff order, so the review can plan chunks by
 * file. The sections partition the text: joined again they are the diff,
 * byte for byte, which keeps a diff that fits one call its old prompt and
 * call key. Pure over text.
 */
import type { DiffSection } from '../core/chunks.js';
import { headerPath } from './diff-parse.js';

const FILE_HEADER = 'diff --git ';

/**
 * `pieceOver`: a file whose section is over this many bytes also gets its
 * pieces (the file header with each hunk), the only places it may be split.
 */
export function diffSections(diff: string, pieceOver: number): DiffSection[] {
  const starts: number[] = [];
  if (diff.startsWith(FILE_HEADER)) starts.push(0);
  for (let at = diff.indexOf(`\n${FILE_HEADER}`); at !== -1; at = diff.indexOf(`\n${FILE_HEADER}`, at + 1))
    starts.push(at + 1);
  return starts.map((start, i) => {
    const text = diff.slice(start, starts[i + 1] ?? diff.length);
    const bytes = Buffer.byteLength(text, 'utf8');
    const line = text.indexOf('\n');
    const path = headerPath(text.slice(FILE_HEADER.length, line === -1 ? text.length : line));
    const section: DiffSection = { path, text, bytes };
    if (bytes > pieceOver) section.pieces = hunkPieces(text);
    return section;
  });
}

/** The file's header followed by each hunk, each piece standing alone as a diff of that file. */
function hunkPieces(section: string): { text: string; bytes: number }[] {
  const first = section.startsWith('@@ ') ? 0 : section.indexOf('\n@@ ');
  if (first === -1) return [{ text: section, bytes: Buffer.byteLength(section, 'utf8') }];
  const header = section.slice(0, first + 1);
  const hunkStarts: number[] = [];
  for (let at = first; at !== -1; at = section.indexOf('\n@@ ', at + 1)) hunkStarts.push(at + 1);
  return hunkStarts.map((s, i) => {
    const text = header + section.slice(s, hunkStarts[i + 1] ?? section.length);
    return { text, bytes: Buffer.byteLength(text, 'utf8') };
  });
}
