/**
 * The chunk plan of a review: a diff over the chunk limit
 * is split by file into chunks, each its own call. Files are packed whole, in
 * diff order; one file's hunks are split only when that file alone is over the
 * limit. A diff that fits one call is one chunk whose text is the diff itself,
 * so its prompt and its call key are the same as before chunking existed.
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
 */
export function planChunks(sections: readonly DiffSection[], limit: number, source?: string): ChunkPlan {
  const chunks: Chunk[] = [];
  let files: string[] = [];
  let texts: string[] = [];
  let size = 0;
  // The chunk's span in `source` while it is a run of whole sections adjacent there; else null.
  let run: { from: number; to: number } | null = null;
  const flush = () => {
    if (texts.length === 0) return;
    const text = source !== undefined && run ? source.slice(run.from, run.to) : texts.join('');
    chunks.push({ index: chunks.length, files, text });
    files = [];
    texts = [];
    size = 0;
    run = null;
  };
  const add = (path: string, text: string, bytes: number, at?: number) => {
    if (size + bytes > limit) flush();
    if (files[files.length - 1] !== path) files.push(path);
    if (texts.length === 0) run = at === undefined ? null : { from: at, to: at + text.length };
    else if (run && at === run.to) run.to += text.length;
    else run = null;
    texts.push(text);
    size += bytes;
  };
  for (const s of sections) {
    if (s.bytes <= limit) {
      add(s.path, s.text, s.bytes, s.at);
      continue;
    }
    // Over the limit alone: it starts its own chunks, split at hunks, and the next file starts afresh.
    flush();
    for (const p of s.pieces ?? [{ text: s.text, bytes: s.bytes }]) {
      if (p.bytes > limit) return { ok: false, path: s.path, bytes: p.bytes };
      add(s.path, p.text, p.bytes);
    }
    flush();
  }
  flush();
  return { ok: true, chunks };
}
