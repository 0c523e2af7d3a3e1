/**
 * What git says about a finding's lines between two revisions: the facts the
 * pure scope-lock and progress rules decide on. Hunks are fetched once per
 * pair of revisions.
 */
import type { LineRange } from '../../core/progress.js';
import type { FileHunks, Git, Hunk } from '../../ports/git.js';
import { Memo } from './memo.js';

export class LineFacts {
  // A failed read stays: the decide stage, which needs it, reports it.
  private readonly cache = new Memo<FileHunks[]>(true);

  constructor(
    private readonly git: Git,
    private readonly repo: string,
  ) {}

  /** Starts fetching the hunks between two revisions (they are cached for the reads that follow). */
  async prefetch(from: string, to: string): Promise<void> {
    if (from !== to) await this.hunks(from, to);
  }

  private hunks(from: string, to: string): Promise<FileHunks[]> {
    return this.cache.get(`${from}..${to}`, () => this.git.hunks(this.repo, from, to));
  }

  /** Whether any line in [start, end] of `file` at `to` changed since `from` (new side). */
  async touchedSince(from: string, to: string, file: string, start: number, end: number): Promise<boolean> {
    if (from === to) return false;
    const f = (await this.hunks(from, to)).find((x) => x.path === file);
    if (!f) return false;
    return f.hunks.some((h) =>
      h.newCount === 0
        ? h.newStart >= start - 1 && h.newStart <= end
        : overlaps(h.newStart, h.newStart + h.newCount - 1, start, end),
    );
  }

  /** Whether the change from `from` to `to` edited any line in [start, end] of `file` at `from` (old side). */
  async editedBetween(from: string, to: string, file: string, start: number, end: number): Promise<boolean> {
    if (from === to) return false;
    const f = (await this.hunks(from, to)).find((x) => x.oldPath === file);
    if (!f) return false;
    return f.hunks.some((h) =>
      h.oldCount === 0
        ? h.oldStart >= start && h.oldStart < end
        : overlaps(h.oldStart, h.oldStart + h.oldCount - 1, start, end),
    );
  }

  /**
   * Where [start, end] of `file` at `from` lies at `to`: shifted when untouched,
   * the hunk's new side when edited, null when the file is gone.
   */
  async mapRange(
    from: string,
    to: string,
    file: string,
    start: number,
    end: number,
  ): Promise<{ file: string; range: LineRange } | null> {
    if (from === to) return { file, range: { start, end } };
    const f = (await this.hunks(from, to)).find((x) => x.oldPath === file);
    if (!f) return { file, range: { start, end } };
    if (f.hunks.length > 0 && f.hunks.every((h) => h.newCount === 0 && h.newStart === 0)) return null; // deleted
    const a = mapOne(f.hunks, start);
    const b = mapOne(f.hunks, end);
    return { file: f.path, range: { start: Math.min(a.start, b.start), end: Math.max(a.end, b.end) } };
  }

  /** Changed lines (added + deleted) between two revisions: the diff-shrink rule's measure. */
  async changedLines(from: string, to: string): Promise<number> {
    if (from === to) return 0;
    return (await this.hunks(from, to)).reduce(
      (n, f) => n + f.hunks.reduce((m, h) => m + h.oldCount + h.newCount, 0),
      0,
    );
  }
}

const overlaps = (a1: number, a2: number, b1: number, b2: number): boolean => a1 <= b2 && b1 <= a2;

function mapOne(hunks: Hunk[], line: number): LineRange {
  let delta = 0;
  for (const h of [...hunks].sort((x, y) => x.oldStart - y.oldStart)) {
    if (h.oldCount === 0) {
      if (line > h.oldStart) delta += h.newCount;
      continue;
    }
    const oldEnd = h.oldStart + h.oldCount - 1;
    if (line >= h.oldStart && line <= oldEnd) {
      const s = Math.max(1, h.newStart);
      return { start: s, end: s + Math.max(h.newCount, 1) - 1 };
    }
    if (line > oldEnd) delta += h.newCount - h.oldCount;
  }
  return { start: line + delta, end: line + delta };
}
