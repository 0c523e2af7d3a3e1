/**
 * The canonical diff's text as prompts carry it, gathered while git writes it.
 *
 * Files the frozen `ignore:` rules leave out are in no prompt, so their
 * sections are kept to their extended header (the `diff --git` line, the mode
 * and `index` lines: what the review's plan, coverage and rename pairing read
 * of them) and the rest of their bytes is never held: a change that adds a
 * 600 MB vendored data set under an ignored path costs the text of the files
 * under review, not of the data set: cost follows the change. The
 * digest is of every byte, as before (canonical-diff.ts hashes the stream).
 *
 * The text kept is bounded by the longest string one process can hold (what
 * is left after the ignore rules can still be over it): past it the text is
 * null, and the run says so (missing_context) rather than crash.
 *
 * The sections are found in the bytes as they arrive, a few bytes held back
 * at each piece's end so that a `diff --git` line split between two pieces is
 * still found before its bytes are routed. At the end the kept bytes are
 * decoded once. For a diff of ASCII bytes with no binary patch (most code),
 * a byte is a character, so the section starts found on the way are offsets
 * in the text and travel with it (sectionStarts: diffSections then neither
 * searches for them nor counts bytes). Otherwise the text is decoded as UTF-8
 * with its binary patches removed (binary-patches.ts) and the starts are left
 * for diffSections to find. Either way the text is what decoding the kept
 * sections and removing binary patches gives (test/git/diff-text-collector.test.ts,
 * a property test over diffs cut at random places).
 */
import { constants, isAscii } from 'node:buffer';
import { BINARY_PATCH_MARK, withoutBinaryPatches } from './binary-patches.js';
import { FILE_HEADER, headerPath } from './diff-parse.js';
import { extendedHeaderEnd, firstLine, HEADER_SCAN } from './diff-sections.js';

const SECTION = Buffer.from(`\n${FILE_HEADER}`, 'latin1');
const BINARY = Buffer.from(BINARY_PATCH_MARK, 'latin1');
/** Bytes held back at a piece's end: a section mark that began there is completed by the next piece. */
const HELD = SECTION.length - 1;
/** Enough of a section to see where its extended header ends (extendedHeader's scan, and the longest marker). */
const HEAD_BYTES = HEADER_SCAN + 32;

export interface CollectOptions {
  /** Paths whose section is kept to its extended header: the frozen ignore rules (their text is in no prompt). */
  leavesOut?: ((path: string) => boolean) | undefined;
  /** The most bytes of text kept; past it the text is null. Default: the longest string this runtime holds. */
  maxTextBytes?: number | undefined;
}

export interface CollectedDiff {
  /** Null when the text kept is over the limit (CollectOptions.maxTextBytes). */
  text: string | null;
  /**
   * Where each file's `diff --git` line starts in `text`, as sectionStarts
   * finds them; only for a text that is all ASCII (so each section's length
   * in UTF-16 units is its byte count) and held no binary patch.
   */
  sectionStarts?: number[];
  /** Bytes of the text kept (the whole diff's less the bodies left out). */
  textBytes: number;
}

export class DiffTextCollector {
  private readonly kept: Buffer[] = [];
  private keptBytes = 0;
  private readonly starts: number[] = [];
  /**
   * Bytes not routed yet: where a section mark may still be completing. The
   * diff is read as if a newline came before it, so that a section at its very
   * start is found like every other; that newline is routed first and never kept.
   */
  private held: Buffer = Buffer.from('\n');
  private unseenNewline = true;
  /** The current section: its first bytes until it is judged, then kept whole or cut to its header. */
  private section: { head: Buffer[]; headBytes: number } | 'keep' | 'cut' = 'keep';
  private readonly leavesOut: ((path: string) => boolean) | undefined;
  private readonly maxTextBytes: number;

  constructor(opts: CollectOptions = {}) {
    this.leavesOut = opts.leavesOut;
    this.maxTextBytes = opts.maxTextBytes ?? constants.MAX_STRING_LENGTH;
  }

  push(piece: Buffer): void {
    let chunk = piece;
    // A piece too short to finish a mark begun in the held bytes is taken with them (rare: pipes give 64 KB).
    if (this.held.length > 0 && chunk.length < HELD) {
      chunk = Buffer.concat([this.held, chunk]);
      this.held = Buffer.alloc(0);
    }
    if (this.held.length > 0) this.routeHeld(chunk);
    let from = 0;
    // A mark wholly in the piece starts a section before its last HELD bytes, which are held back.
    for (let at = chunk.indexOf(SECTION, from); at !== -1; at = chunk.indexOf(SECTION, at + 1)) {
      this.route(chunk.subarray(from, at + 1));
      from = at + 1;
      this.begin();
    }
    const safe = Math.max(from, chunk.length - HELD);
    this.route(chunk.subarray(from, safe));
    this.held = chunk.subarray(safe);
  }

  /**
   * Routes the held bytes, with the sections that start in them: a mark that
   * began there ends in the piece after them (at least HELD bytes long), and
   * the section it opens starts at the latest at the piece's first byte.
   */
  private routeHeld(chunk: Buffer): void {
    const held = this.held;
    const seam = Buffer.concat([held, chunk.subarray(0, HELD)]);
    let done = 0;
    for (let at = seam.indexOf(SECTION); at !== -1 && at < held.length; at = seam.indexOf(SECTION, at + 1)) {
      this.route(held.subarray(done, at + 1));
      done = at + 1;
      this.begin();
    }
    this.route(held.subarray(done));
    this.held = Buffer.alloc(0);
  }

  finish(): CollectedDiff {
    this.route(this.held);
    this.held = Buffer.alloc(0);
    this.judge();
    const textBytes = this.keptBytes;
    if (textBytes > this.maxTextBytes) return { text: null, textBytes };
    const bytes = this.kept.length === 1 ? (this.kept[0] as Buffer) : Buffer.concat(this.kept, textBytes);
    this.kept.length = 0;
    if (!isAscii(bytes) || bytes.includes(BINARY))
      return { text: withoutBinaryPatches(bytes.toString('utf8')), textBytes };
    return { text: bytes.toString('latin1'), sectionStarts: this.starts, textBytes };
  }

  /** A new section starts here: the one before is judged if it was not yet. */
  private begin(): void {
    this.judge();
    this.starts.push(this.keptBytes);
    this.section = this.leavesOut ? { head: [], headBytes: 0 } : 'keep';
  }

  private route(routed: Buffer): void {
    if (routed.length === 0) return;
    // The first byte routed is the newline read before the diff (see `held`).
    const bytes = this.unseenNewline ? routed.subarray(1) : routed;
    this.unseenNewline = false;
    const s = this.section;
    if (s === 'keep') this.keep(bytes);
    else if (s !== 'cut') {
      s.head.push(bytes);
      s.headBytes += bytes.length;
      if (s.headBytes >= HEAD_BYTES) this.judge();
    }
  }

  /** Judges the section whose first bytes are held: its path left out keeps only its extended header. */
  private judge(): void {
    const s = this.section;
    if (s === 'keep' || s === 'cut') return;
    const head = s.head.length === 1 ? (s.head[0] as Buffer) : Buffer.concat(s.head, s.headBytes);
    const scan = head.subarray(0, HEADER_SCAN).toString('latin1');
    const out = this.leavesOut?.(headerPath(firstLine(scan))) ?? false;
    this.section = out ? 'cut' : 'keep';
    this.keep(out ? head.subarray(0, extendedHeaderEnd(scan)) : head);
  }

  private keep(bytes: Buffer): void {
    this.keptBytes += bytes.length;
    // Past the limit the text will be null and only its size is told: what was kept is let go at once.
    if (this.keptBytes > this.maxTextBytes) {
      this.kept.length = 0;
      return;
    }
    this.kept.push(bytes);
  }
}
