/**
 * The canonical diff's text as prompts carry it, gathered while git writes it
 * (P9). After a 20 MB diff had been read, three passes over the whole text
 * came before any prompt could be cut: decoding it, looking for a binary patch
 * (binary-patches.ts) and finding each file's `diff --git` line
 * (diff-sections.ts), about 45 ms on the bench's box, in which nothing else
 * could happen. Here each piece is decoded and searched as it arrives, while
 * git is still writing the rest, and the pieces are joined once at the end.
 *
 * The fast path is for a diff of ASCII bytes (most code): a piece of ASCII
 * decodes byte for byte, so the section starts found in it are offsets in the
 * text and a section's length is its byte count. The first piece that is not
 * ASCII ends it: the bytes are kept and decoded whole at the end, as before,
 * and the starts are left for diffSections to find. A binary patch also ends
 * it (withoutBinaryPatches rewrites the text, moving every start after it).
 * Either way the text is the same as decoding the bytes whole and removing
 * binary patches (test/git/diff-text-collector.test.ts, a property test).
 */
import { isAscii } from 'node:buffer';
import { BINARY_PATCH_MARK, withoutBinaryPatches } from './binary-patches.js';
import { FILE_HEADER } from './diff-parse.js';

const SECTION_MARK = `\n${FILE_HEADER}`;
/** Enough of the text before a piece to find a mark that began in the piece before. */
const OVERLAP = Math.max(SECTION_MARK.length, BINARY_PATCH_MARK.length) - 1;

export interface CollectedDiff {
  text: string;
  /**
   * Where each file's `diff --git` line starts in `text`, as sectionStarts
   * finds them; only for a text that is all ASCII (so each section's length
   * in UTF-16 units is its byte count) and held no binary patch.
   */
  sectionStarts?: number[];
}

export class DiffTextCollector {
  /** Decoded pieces while every byte so far is ASCII with no binary patch; null after. */
  private pieces: string[] | null = [];
  /** The raw bytes once the fast path has ended. */
  private chunks: Buffer[] = [];
  private length = 0;
  private tail = '';
  private readonly starts: number[] = [];

  push(chunk: Buffer): void {
    if (this.pieces !== null && isAscii(chunk)) this.pushAscii(chunk.toString('latin1'), chunk);
    else this.pushRaw(chunk);
  }

  finish(): CollectedDiff {
    if (this.pieces === null)
      return { text: withoutBinaryPatches(Buffer.concat(this.chunks).toString('utf8')) };
    const text = this.pieces.join('');
    return { text, sectionStarts: text.startsWith(FILE_HEADER) ? [0, ...this.starts] : this.starts };
  }

  private pushAscii(piece: string, chunk: Buffer): void {
    const window = this.tail + piece;
    if (window.includes(BINARY_PATCH_MARK)) {
      this.pushRaw(chunk);
      return;
    }
    const windowAt = this.length - this.tail.length;
    // Only marks that end in `piece`: one wholly in the tail was counted with the piece before.
    const from = Math.max(0, this.tail.length - SECTION_MARK.length + 1);
    for (let at = window.indexOf(SECTION_MARK, from); at !== -1; at = window.indexOf(SECTION_MARK, at + 1))
      this.starts.push(windowAt + at + 1);
    this.pieces?.push(piece);
    this.length += piece.length;
    this.tail = window.slice(-OVERLAP);
  }

  /** Leaves the fast path for good: ASCII pieces re-encode to exactly the bytes they came from. */
  private pushRaw(chunk: Buffer): void {
    if (this.pieces !== null) {
      this.chunks = this.pieces.map((p) => Buffer.from(p, 'latin1'));
      this.pieces = null;
    }
    this.chunks.push(chunk);
  }
}
