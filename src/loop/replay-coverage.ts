/**
 * Replay of issue 17's facts: from a recorded review round and the frozen
 * ignore rules, recompute which findings were dropped on ignored paths and
 * what each reviewer covered, with the same pure core the live stage used.
 * The diff's file list is a recorded fact (the coverage's `files`); which of
 * them are ignored, and which each reviewer saw, are recomputed.
 */
import { type Coverage, coverageOf, partitionFiles } from '../core/coverage.js';
import { ignoreMatcher, NO_IGNORE } from '../core/ignore.js';
import type { ReviewerReply, Snapshot } from '../core/types.js';
import type { DroppedFinding } from './review-calls.js';
import type { ReviewResult } from './stages/review.js';

export interface ReplayedCoverage {
  /** The frozen rule that leaves `file` out, or null: a finding there is dropped. */
  droppedRule: (file: string) => string | null;
  dropped: DroppedFinding[];
  coverage: Record<string, Coverage> | undefined;
}

export function replayCoverage(
  review: ReviewResult,
  snapshot: Snapshot,
  replyOf: (callKey: string) => ReviewerReply | undefined,
): ReplayedCoverage {
  const droppedRule = ignoreMatcher(snapshot.ignore ?? NO_IGNORE);
  const dropped: DroppedFinding[] = [];
  for (const v of review.verdicts) {
    for (const [index, f] of (replyOf(v.callKey)?.findings ?? []).entries()) {
      const rule = droppedRule(f.file);
      if (rule !== null)
        dropped.push({ reviewer: v.reviewer, callKey: v.callKey, index, file: f.file, rule });
    }
  }
  const recorded = review.coverage;
  if (!recorded) return { droppedRule, dropped, coverage: undefined };
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
  return { droppedRule, dropped, coverage };
}
