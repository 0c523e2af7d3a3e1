/**
 * Replay of a round's coverage: from a recorded review round and the frozen
 * ignore rules, recompute what each reviewer covered, with the same pure core
 * the live stage used (which findings were dropped is the review planner's:
 * core/review-gating.ts).
 * The diff's file list is a recorded fact (the coverage's `files`); which of
 * them are ignored, and which each reviewer saw, are recomputed.
 */
import { type Coverage, coverageOf, partitionFiles } from './coverage.js';
import { NO_IGNORE, revisionMatcher } from './ignore.js';
import type { ReviewResult } from './stage-results.js';
import type { Snapshot } from './types.js';

export interface ReplayedCoverage {
  /** The frozen rule that leaves `file` out, or null: a finding there is dropped. */
  droppedRule: (file: string) => string | null;
  coverage: Record<string, Coverage> | undefined;
}

export function replayCoverage(review: ReviewResult, snapshot: Snapshot): ReplayedCoverage {
  const droppedRule = revisionMatcher(snapshot.ignore ?? NO_IGNORE, review.editedByFix);
  const recorded = review.coverage;
  if (!recorded) return { droppedRule, coverage: undefined };
  const files = Object.values(recorded)[0]?.files.map((f) => f.path) ?? [];
  const { kept, ignored } = partitionFiles(files, droppedRule);
  const coverage: Record<string, Coverage> = {};
  for (const r of snapshot.reviewers) {
    const mine = review.verdicts.filter((v) => v.reviewer === r.name);
    coverage[r.name] = coverageOf(
      files,
      ignored,
      mine.map((v) => v.chunk?.files ?? kept),
    );
  }
  return { droppedRule, coverage };
}
