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
    const section: DiffSection = { path, text, bytes, at: start };
    const header = extendedHeader(text);
    const blob = postImageBlob(header);
    if (blob !== undefined) section.blob = blob;
    // A new text file's hunk holds every line of it: the section carries the file whole.
    if (header.includes('\nnew file mode ') && text.startsWith('--- ', header.length)) section.added = true;
    if (bytes > pieceOver) section.pieces = hunkPieces(text);
    return section;
  });
}

/**
 * A section's lines before its first hunk, `---` line or binary marker: the
 * `diff --git` line and the extended header (mode, index, similarity).
 */
function extendedHeader(section: string): string {
  const scan = section.slice(0, HEADER_SCAN);
  const m = /\n(?:@@ |--- |Binary files |GIT binary patch)/.exec(scan);
  return m ? scan.slice(0, m.index + 1) : scan;
}

/**
 * The file's blob id at the diff's second commit, from the header's
 * `index <old>..<new>` line (`--full-index` gives whole ids); none for a
 * deleted file (all zeros) or a header without the line (a mode change alone).
 */
function postImageBlob(header: string): string | undefined {
  const m = /\nindex [0-9a-f]+\.\.([0-9a-f]+)(?: [0-7]+)?\n/.exec(header);
  if (!m || /^0+$/.test(m[1] as string)) return undefined;
  return m[1];
}

/** Enough of a section to hold its extended header (two quoted paths, a few KB at most). */
const HEADER_SCAN = 8192;

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
