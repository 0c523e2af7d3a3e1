/**
 * What one review round sends: the diff's files,
 * the ones the frozen ignore rules leave out, and the chunks of the rest,
 * each chunk one call per reviewer. A file whose smallest piece no call can
 * carry ends the run `missing_context`, naming the `ignore:` line that would
 * leave it out.
 */
import { type Chunk, type DiffSection, planChunks } from '../../core/chunks.js';
import { DEFAULT_CHUNK_BYTES } from '../../core/config.js';
import { partitionFiles } from '../../core/coverage.js';
import { type IgnoreMatcher, ignoreLineFor, NO_IGNORE, revisionMatcher } from '../../core/ignore.js';
import { unfinishedEnd } from '../../core/run-state.js';
import type { Snapshot } from '../../core/types.js';
import { RunEnd } from './run-context.js';

export interface ReviewPlan {
  /** Every file of the diff, in diff order. */
  files: string[];
  ignored: { path: string; rule: string }[];
  chunks: Chunk[];
  /** The frozen rules, for findings on ignored paths. */
  isIgnored: IgnoreMatcher;
  /** Each file's blob id at the revision, where the diff's `index` line names it. */
  blobIds: ReadonlyMap<string, string>;
  /** Files whose whole text rides in one chunk's diff (their content is not sent again). */
  wholeInDiff: ReadonlySet<string>;
}

/** The most bytes of diff one call carries: `review.chunkBytes`, frozen in the snapshot. */
export const chunkLimit = (snapshot: Pick<Snapshot, 'review'>): number =>
  snapshot.review?.chunkBytes ?? DEFAULT_CHUNK_BYTES;

/**
 * `bySection`: the diff's sections as the Git port reads them for prompts, cut at
 * chunkLimit (Git.promptSections: git/diff-sections.ts, git/rename-sections.ts).
 */
export function planReview(
  snapshot: Snapshot,
  diff: string,
  bySection: DiffSection[],
  editedByFix: readonly string[] = [],
): ReviewPlan {
  const limit = chunkLimit(snapshot);
  const files = bySection.map((s) => s.path);
  const { kept, ignored, isIgnored } = keptSections(snapshot, bySection, editedByFix);
  const plan = planChunks(kept, limit, diff);
  if (!plan.ok) throw tooLargeForOneCall(plan, limit);
  const blobIds = new Map<string, string>();
  const wholeInDiff = new Set<string>();
  for (const s of kept) {
    if (s.blob !== undefined) blobIds.set(s.path, s.blob);
    // Within the limit, a section rides in one chunk: that chunk's diff holds the whole file.
    if (s.whole && s.bytes <= limit) wholeInDiff.add(s.path);
  }
  return { files, ignored, chunks: plan.chunks, isIgnored, blobIds, wholeInDiff };
}

/**
 * The sections of a diff that the frozen ignore rules keep, and those they
 * leave out with their rule: what every prompt of the run may carry (the
 * review's chunks, the refuter's and the fixer's diffs). Nothing ignored: the
 * same array, so a chunk or prompt of it is the diff byte for byte. The rules
 * leave out parts of the change as admitted: a path the run's fixes edited
 * (`editedByFix`) is kept.
 */
export function keptSections(
  snapshot: Pick<Snapshot, 'ignore'>,
  sections: DiffSection[],
  editedByFix: readonly string[] = [],
): { kept: DiffSection[]; ignored: { path: string; rule: string }[]; isIgnored: IgnoreMatcher } {
  const isIgnored = revisionMatcher(snapshot.ignore ?? NO_IGNORE, editedByFix);
  const { ignored } = partitionFiles(
    sections.map((s) => s.path),
    isIgnored,
  );
  const left = new Set(ignored.map((i) => i.path));
  const kept = left.size === 0 ? sections : sections.filter((s) => !left.has(s.path));
  return { kept, ignored, isIgnored };
}

/**
 * Invariant 15: a file whose smallest piece no call can carry fails the run
 * `missing_context`, naming the `ignore:` line that would leave it out (the
 * review's chunks and the refuter's and fixer's focused diffs alike).
 */
export const tooLargeForOneCall = (file: { path: string; bytes: number }, limit: number): RunEnd =>
  new RunEnd(
    unfinishedEnd(
      'failed',
      'missing_context',
      `${file.path}: ${file.bytes} bytes of its diff cannot be split below review.chunkBytes (${limit}); to leave it out of the review, add to the config: ${ignoreLineFor(file.path)}`,
    ),
  );
