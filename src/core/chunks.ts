/**
 * The chunk plan of a review: a diff over the chunk limit
 * is split by file into chunks, each its own call. Files stay whole, in diff
 * order, and boundaries fall by path, so a push that edits one file changes
 * the chunk holding it and at most one neighbour; one file's hunks are split
 * only when that file alone is over the limit. A diff that fits one call is
 * one chunk whose text is the diff itself, so its prompt and its call key are
 * the same as before chunking existed.
 * Pure: the sections come from the git layer (git/diff-sections.ts).
 */

export interface DiffSection {
  path: string;
  /** This file's part of the diff, from its `diff --git` line to the next one's. */
  text: string;
  /** UTF-8 bytes of `text`. */
  bytes: number;
  /** The file's blob id at the revision, from the diff's `index` line (none for a deleted file). */
  blob?: string;
  /**
   * The section carries the file whole: its one hunk holds every line of the
   * file at the revision (a new text file, or one changed from its first line
   * to its last), so its content need not be sent again as context.
   */
  whole?: true;
  /** Where `text` starts in the diff it was cut from (for chunks that are a run of whole sections). */
  at?: number;
  /** Present when the file alone is over the limit: its header with each hunk. */
  pieces?: { text: string; bytes: number }[];
  /**
   * A file the change adds (`new`) or deletes (`deleted`) that no exact rename
   * paired (a deletion over the limit, cut to its header, included): git's
   * rename detection may still take two of them for a moved file with an edit
   * (git/diff-sections.ts withRenames).
   */
  lone?: 'new' | 'deleted';
}

export interface Chunk {
  index: number;
  /** The files whose diff (or part of it) the chunk carries, in diff order. */
  files: string[];
  text: string;
}

export type ChunkPlan =
  | { ok: true; chunks: Chunk[] }
  /** One file's smallest piece (its header and one hunk) is over the limit: no call can carry it. */
  | { ok: false; path: string; bytes: number };

/**
 * Plans the chunks of the kept (not ignored) sections, in their order. With
 * `source`, the diff the sections were cut from (each section's `text` is
 * `source` from its `at`), a chunk that is a run of whole sections adjacent
 * there is a slice of it, not a copy (20 MB of text on a large change); any other chunk
 * joins its texts. Either way the same text.
 *
 * Boundaries are stable across pushes: a chunk ends after a file whose path
 * hash falls under that file's share of half the limit (`endsChunk`), so an
 * edit to one file moves at most the boundary after it, and every other chunk
 * keeps its files and its text (its prompt, and so a verdict on it, can be
 * reused). A run of files with no such boundary that is over the limit is cut
 * after the file nearest to ending one, by its cut score (`splitRun`), which
 * again depends on the files, not on where earlier ones happened to end (an
 * edit that keeps the file's rank among the cut scores, and is smaller than
 * any file, changes at most two chunks: the property test in
 * test/review-scale/stable-chunks.property.test.ts). A file over the limit
 * alone is split at hunks into chunks of its own.
 */
export function planChunks(sections: readonly DiffSection[], limit: number, source?: string): ChunkPlan {
  const out = new ChunkBuilder(source);
  let total = 0;
  for (const s of sections) total += s.bytes;
  // One call carries it all: one chunk whose text is the diff (the key recorded runs have).
  if (total <= limit) {
    for (const s of sections) out.add(s.path, s.text, s.at);
    out.flush();
    return { ok: true, chunks: out.chunks };
  }
  let run: DiffSection[] = [];
  const endRun = () => {
    for (const group of splitRun(run, limit)) {
      for (const s of group) out.add(s.path, s.text, s.at);
      out.flush();
    }
    run = [];
  };
  for (const s of sections) {
    if (s.bytes <= limit) {
      run.push(s);
      if (endsChunk(s, limit)) endRun();
      continue;
    }
    // Over the limit alone: it starts its own chunks, split at hunks, and the next file starts afresh.
    endRun();
    let size = 0;
    for (const p of s.pieces ?? [{ text: s.text, bytes: s.bytes }]) {
      if (p.bytes > limit) return { ok: false, path: s.path, bytes: p.bytes };
      if (size + p.bytes > limit) {
        out.flush();
        size = 0;
      }
      out.add(s.path, p.text);
      size += p.bytes;
    }
    out.flush();
  }
  endRun();
  return { ok: true, chunks: out.chunks };
}

/**
 * Whether a chunk ends after this file: its path's hash, as a fraction, is
 * under the file's bytes over half the limit (`cutScore` under 1). Chunks then
 * average about half the limit whatever the files' sizes, and the rule reads
 * nothing but the file.
 */
export const endsChunk = (s: Pick<DiffSection, 'path' | 'bytes'>, limit: number): boolean =>
  cutScore(s, limit) < 1;

/** How readily a chunk ends after this file: lower ends sooner; under 1 always. */
export const cutScore = (s: Pick<DiffSection, 'path' | 'bytes'>, limit: number): number =>
  pathHash(s.path) / 2 ** 32 / (s.bytes / (limit / 2));

/**
 * A run of files between two boundaries, in groups that fit the limit: whole
 * when it fits, else cut after the file that came nearest to ending a chunk
 * (the lowest `cutScore`, never the last file) and each side split the same
 * way. When an edit takes a file's score just past 1 and joins two runs,
 * that file is where the joined run is cut again. Every file fits alone, so
 * it ends.
 */
function splitRun(run: readonly DiffSection[], limit: number): DiffSection[][] {
  if (run.length === 0) return [];
  let bytes = 0;
  for (const s of run) bytes += s.bytes;
  if (bytes <= limit || run.length === 1) return [[...run]];
  let cut = 0;
  let best = Number.POSITIVE_INFINITY;
  for (let i = 0; i < run.length - 1; i++) {
    const score = cutScore(run[i] as DiffSection, limit);
    if (score < best) [cut, best] = [i, score];
  }
  return [...splitRun(run.slice(0, cut + 1), limit), ...splitRun(run.slice(cut + 1), limit)];
}

/** FNV-1a over the path's UTF-16 units with a final avalanche: a fixed, well-spread 32-bit number. */
export function pathHash(path: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < path.length; i++) h = Math.imul(h ^ path.charCodeAt(i), 0x01000193);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Joins texts into chunks, as a slice of `source` while a chunk is a run of sections adjacent there. */
class ChunkBuilder {
  readonly chunks: Chunk[] = [];
  private files: string[] = [];
  private texts: string[] = [];
  // The chunk's span in `source` while it is a run of whole sections adjacent there; else null.
  private span: { from: number; to: number } | null = null;

  private readonly source: string | undefined;

  constructor(source: string | undefined) {
    this.source = source;
  }

  add(path: string, text: string, at?: number): void {
    if (this.files[this.files.length - 1] !== path) this.files.push(path);
    if (this.texts.length === 0) this.span = at === undefined ? null : { from: at, to: at + text.length };
    else if (this.span && at === this.span.to) this.span.to += text.length;
    else this.span = null;
    this.texts.push(text);
  }

  flush(): void {
    if (this.texts.length === 0) return;
    const { source, span } = this;
    const text = source !== undefined && span ? source.slice(span.from, span.to) : this.texts.join('');
    this.chunks.push({ index: this.chunks.length, files: this.files, text });
    this.files = [];
    this.texts = [];
    this.span = null;
  }
}
