/**
 * Splits a canonical diff (canonical-diff.ts: `--no-renames`, quoted paths)
 * into one section per file, in diff order, so the review can plan chunks by
 * file. The sections partition the text: joined again they are the diff,
 * byte for byte, which keeps a diff that fits one call its old prompt and
 * call key. Two kinds of section say nothing a reviewer needs in their lines,
 * and are cut to what git itself writes for them (compactSections):
 * - an exact rename (a deleted file and an added one of the same blob and
 *   mode): the deleted side is its header, as `git diff -D` writes it, and
 *   the added side git's rename header (`similarity index 100%`), as
 *   `git diff -M` writes it. Moving a directory no longer sends its content
 *   twice to every reviewer of every round, and a moved file over the chunk
 *   limit no longer fails the run;
 * - a deleted file over the chunk limit: its header, as `git diff -D` writes
 *   it (a smaller deletion is shown whole: what was removed can matter).
 * The files added or deleted that no exact rename paired are marked `lone`:
 * git's rename detection may pair two of them as a move with an edit
 * (withRenames, with what git/rename-sections.ts asks of git). Pure over text.
 */
import type { DiffSection } from '../core/chunks.js';
import type { RenameSection } from '../ports/git.js';
import { CONTEXT_LINES, FILE_HEADER, HUNK, headerNames, headerPath } from './diff-parse.js';

/**
 * `pieceOver`: a file whose section is over this many bytes also gets its
 * pieces (the file header with each hunk), the only places it may be split.
 * `asciiStarts`: the sections' starts found while an all-ASCII diff streamed
 * in (diff-text-collector.ts), so neither they nor byte counts are searched
 * for again.
 */
export function diffSections(
  diff: string,
  pieceOver: number,
  asciiStarts?: readonly number[],
  /**
   * The frozen ignore rules: a file deleted at a path they leave out is never
   * the source of a rename. Its content reached no reviewer, so a file moved
   * out of it (`dist/x.js` to `src/x.js`) stays an addition shown whole.
   */
  leavesOut?: (path: string) => boolean,
): DiffSection[] {
  const starts = asciiStarts ?? sectionStarts(diff);
  const cut = starts.map((start, i): Cut => {
    const text = diff.slice(start, starts[i + 1] ?? diff.length);
    const bytes = asciiStarts ? text.length : Buffer.byteLength(text, 'utf8');
    const path = headerPath(firstLine(text));
    const section: DiffSection = { path, text, bytes, at: start };
    const header = extendedHeader(text);
    const ids = blobIds(header);
    if (ids?.post !== undefined) section.blob = ids.post;
    if (text.startsWith('--- ', header.length) && showsWholeFile(text, header)) section.whole = true;
    if (bytes > pieceOver) section.pieces = hunkPieces(text);
    return { section, header, ids, created: modeOf(header, 'new'), removed: modeOf(header, 'deleted') };
  });
  compactSections(cut, pieceOver, leavesOut);
  return cut.map((c) => c.section);
}

/**
 * Whether a text section's hunks hold every line of the file at the revision.
 * A new file's one hunk does. A changed file's does when it has one hunk, that
 * hunk starts at the file's first line, and it ends at the file's last: git
 * shows CONTEXT_LINES unchanged lines after a hunk's last change unless the
 * file ends sooner, or ends without a newline (its marker follows the last
 * line). Three trailing lines that happen to be the file's last look the same
 * as three with more after them: not whole, and its content is read as before.
 */
function showsWholeFile(text: string, header: string): boolean {
  if (header.includes('\nnew file mode ')) return true;
  const hunk = text.indexOf('\n@@ ');
  // The header first: a hunk not at line 1 settles it without scanning the section.
  if (hunk === -1) return false;
  const eol = text.indexOf('\n', hunk + 1);
  if (HUNK.exec(text.slice(hunk + 1, eol === -1 ? text.length : eol))?.[3] !== '1') return false;
  // Every line of a hunk starts with its marker, so a line starting `@@ ` is the next hunk.
  if (text.indexOf('\n@@ ', hunk + 1) !== -1) return false;
  let trailing = 0;
  let end = text.endsWith('\n') ? text.length - 1 : text.length;
  for (;;) {
    const start = text.lastIndexOf('\n', end - 1) + 1;
    const mark = text[start];
    if (mark === '\\') {
      // No newline at the end: what it follows is the last line of a side; a context
      // or added line is the last of the file at the revision.
      const prev = text[text.lastIndexOf('\n', start - 2) + 1];
      if (trailing === 0 && (prev === ' ' || prev === '+')) return true;
    } else if (mark === ' ') trailing++;
    else return trailing < CONTEXT_LINES;
    if (trailing >= CONTEXT_LINES) return false;
    end = start - 1;
  }
}

/** Where each file's `diff --git` line starts in a diff. */
export function sectionStarts(diff: string): number[] {
  const starts: number[] = [];
  if (diff.startsWith(FILE_HEADER)) starts.push(0);
  for (let at = diff.indexOf(`\n${FILE_HEADER}`); at !== -1; at = diff.indexOf(`\n${FILE_HEADER}`, at + 1))
    starts.push(at + 1);
  return starts;
}

/** A section with what its header says: the file's blob ids and, for a new or deleted file, its mode. */
interface Cut {
  section: DiffSection;
  header: string;
  ids: { pre?: string; post?: string } | undefined;
  created: string | undefined;
  removed: string | undefined;
}

/**
 * Cuts exact renames and deleted files over `pieceOver` to git's own headers
 * for them (see the top of this file). A blob deleted at one path and added at
 * several is paired with the first; the others stay whole, as copies.
 */
function compactSections(cut: Cut[], pieceOver: number, leavesOut?: (path: string) => boolean): void {
  const unseen = (c: Cut) => c.removed !== undefined && leavesOut?.(c.section.path) === true;
  const deletedBy = new Map<string, Cut[]>();
  for (const c of cut)
    if (c.removed !== undefined && c.ids?.pre !== undefined && !unseen(c)) {
      const key = `${c.ids.pre} ${c.removed}`;
      deletedBy.set(key, [...(deletedBy.get(key) ?? []), c]);
    }
  const paired = new Set<Cut>();
  for (const c of cut) {
    if (c.created === undefined || c.ids?.post === undefined) continue;
    const from = deletedBy.get(`${c.ids.post} ${c.created}`)?.find((d) => !paired.has(d));
    if (!from) continue;
    paired.add(from);
    paired.add(c);
    // The new side keeps its blob id (reads of its content at the revision ask by it), not
    // `whole`: its content is no longer in the diff, so context carries it.
    delete c.section.whole;
    replaceText(c.section, renameHeader(from.header, c.header));
  }
  for (const c of cut)
    if (c.removed !== undefined && (paired.has(c) || c.section.bytes > pieceOver))
      replaceText(c.section, c.header);
  // Unpaired (a deletion cut for its size included): candidates for git's rename detection (withRenames).
  for (const c of cut) {
    if (paired.has(c)) continue;
    if (c.created !== undefined) c.section.lone = 'new';
    else if (c.removed !== undefined && !unseen(c)) c.section.lone = 'deleted';
  }
}

/**
 * The sections with the pairs git's rename detection found among the lone
 * ones (git/rename-sections.ts): the deleted side cut to its header, as
 * `git diff -D` writes it, and the new side git's own rename section (rename
 * header and the edit's hunks), split at hunks when it alone is over
 * `pieceOver`. A pair that does not name two lone sections is left alone.
 * Returns new section objects for what changes; the input is not touched.
 */
export function withRenames(
  sections: readonly DiffSection[],
  renames: readonly RenameSection[],
  pieceOver: number,
): DiffSection[] {
  const lone = new Map<string, number>();
  sections.forEach((s, i) => {
    if (s.lone) lone.set(`${s.lone}\0${s.path}`, i);
  });
  const out = [...sections];
  for (const r of renames) {
    const from = lone.get(`deleted\0${r.from}`);
    const to = lone.get(`new\0${r.to}`);
    if (from === undefined || to === undefined) continue;
    const [gone, moved] = [out[from], out[to]];
    // Each side pairs once: a second rename naming it finds it no longer lone.
    if (!gone?.lone || !moved?.lone) continue;
    const { lone: _g, ...deleted } = gone;
    const { lone: _m, whole: _w, ...renamed } = moved;
    replaceText(deleted, extendedHeader(gone.text));
    replaceText(renamed, r.text);
    if (renamed.bytes > pieceOver) renamed.pieces = hunkPieces(renamed.text);
    out[from] = deleted;
    out[to] = renamed;
  }
  return out;
}

function replaceText(section: DiffSection, text: string): void {
  section.text = text;
  section.bytes = Buffer.byteLength(text, 'utf8');
  // No longer a slice of the diff, and one piece at most.
  delete section.at;
  delete section.pieces;
}

/** `git diff -M`'s header of an exact rename, from the two sections' `diff --git` lines. */
function renameHeader(deleted: string, added: string): string {
  const [from] = headerNames(firstLine(deleted));
  const [, to] = headerNames(firstLine(added));
  return `diff --git ${from} ${to}\nsimilarity index 100%\nrename from ${unprefixed(from)}\nrename to ${unprefixed(to)}\n`;
}

/** A section's `diff --git` line, without that prefix. */
export function firstLine(section: string): string {
  const eol = section.indexOf('\n');
  return section.slice(FILE_HEADER.length, eol === -1 ? section.length : eol);
}

/** `a/x` as `x`, `"a/\303\251"` as `"\303\251"`: how `rename from` and `rename to` name a path. */
const unprefixed = (name: string): string => (name.startsWith('"') ? `"${name.slice(3)}` : name.slice(2));

const FILE_MODE = { new: /\nnew file mode ([0-7]+)\n/, deleted: /\ndeleted file mode ([0-7]+)\n/ };

/** The mode on a `new file mode` or `deleted file mode` line of the header. */
const modeOf = (header: string, kind: 'new' | 'deleted'): string | undefined =>
  FILE_MODE[kind].exec(header)?.[1];

/**
 * A section's lines before its first hunk, `---` line or binary marker: the
 * `diff --git` line and the extended header (mode, index, similarity).
 */
function extendedHeader(section: string): string {
  const scan = section.slice(0, HEADER_SCAN);
  return scan.slice(0, extendedHeaderEnd(scan));
}

/** Where the extended header of a section's first HEADER_SCAN characters ends (all of them without a hunk or marker). */
export function extendedHeaderEnd(scan: string): number {
  const m = /\n(?:@@ |--- |Binary files |GIT binary patch)/.exec(scan);
  return m ? m.index + 1 : scan.length;
}

/**
 * The file's blob ids at the diff's two commits, from the header's
 * `index <pre>..<post>` line (`--full-index` gives whole ids): no `pre` for a
 * new file, no `post` for a deleted one (all zeros), nothing for a header
 * without the line (a mode change alone).
 */
function blobIds(header: string): { pre?: string; post?: string } | undefined {
  const m = /\nindex ([0-9a-f]+)\.\.([0-9a-f]+)(?: [0-7]+)?\n/.exec(header);
  if (!m) return undefined;
  const ids: { pre?: string; post?: string } = {};
  if (!/^0+$/.test(m[1] as string)) ids.pre = m[1];
  if (!/^0+$/.test(m[2] as string)) ids.post = m[2];
  return ids;
}

/** Enough of a section to hold its extended header (two quoted paths, a few KB at most). */
export const HEADER_SCAN = 8192;

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
