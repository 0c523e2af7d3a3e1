/**
 * Coverage (no partial review goes unsaid): per reviewer, which files of the diff it was
 * shown, and which were left out by which rule. A run ends clear only when
 * every file not ignored was reviewed by every reviewer (decide.ts takes
 * `coverageComplete`; `verify` checks the record's copy). Pure, so the live
 * stage, replay and verify compute it the same way.
 */
import type { IgnoreMatcher } from './ignore.js';

export interface Coverage {
  /** Every file of the diff, in diff order; an ignored one carries the rule that matched. */
  files: { path: string; ignored?: string }[];
  /** The files this reviewer was shown, in diff order. */
  reviewed: string[];
  /** Each ignored file with its rule. */
  ignored: { path: string; rule: string }[];
}

/** The files of the diff split into kept and ignored. */
export function partitionFiles(
  paths: readonly string[],
  ignored: IgnoreMatcher,
): { kept: string[]; ignored: { path: string; rule: string }[] } {
  const kept: string[] = [];
  const out: { path: string; rule: string }[] = [];
  for (const path of paths) {
    const rule = ignored(path);
    if (rule === null) kept.push(path);
    else out.push({ path, rule });
  }
  return { kept, ignored: out };
}

/** A reviewer's coverage: the diff's files, and the files of the chunks it returned a verdict on. */
export function coverageOf(
  paths: readonly string[],
  ignored: readonly { path: string; rule: string }[],
  chunkFiles: readonly (readonly string[])[],
): Coverage {
  const rules = new Map(ignored.map((i) => [i.path, i.rule]));
  const seen = new Set(chunkFiles.flat());
  return {
    files: paths.map((path) => {
      const rule = rules.get(path);
      return rule === undefined ? { path } : { path, ignored: rule };
    }),
    reviewed: paths.filter((p) => seen.has(p)),
    ignored: [...ignored],
  };
}

/** The files not ignored that `c` did not review (empty: complete). */
export function uncovered(c: Coverage): string[] {
  const reviewed = new Set(c.reviewed);
  return c.files.filter((f) => f.ignored === undefined && !reviewed.has(f.path)).map((f) => f.path);
}

/**
 * Whether every configured reviewer reviewed every file not ignored. A
 * reviewer with no coverage entry reviewed nothing.
 */
export function coverageComplete(
  coverage: Readonly<Record<string, Coverage>>,
  reviewers: readonly string[],
): boolean {
  return reviewers.every((r) => {
    const c = coverage[r];
    return c !== undefined && uncovered(c).length === 0;
  });
}

/**
 * Whether a recorded review round covered every file not ignored for every
 * configured reviewer; undefined for a round recorded before coverage existed.
 */
export function roundCoverageComplete(
  review: { coverage?: Readonly<Record<string, Coverage>> } | undefined,
  snapshot: { reviewers: readonly { name: string }[] },
): boolean | undefined {
  if (!review?.coverage) return undefined;
  return coverageComplete(
    review.coverage,
    snapshot.reviewers.map((r) => r.name),
  );
}

/** What a round's coverage comes to across its reviewers: files kept, reviewed by every one, and left out. */
export interface CoverageSummary {
  /** Files of the diff the ignore rules kept. */
  kept: number;
  /** Of those, the files every reviewer reviewed. */
  reviewedByAll: number;
  ignored: { path: string; rule: string }[];
}

/** Null for a round without reviewers' coverage (recorded before coverage existed). */
export function coverageSummary(coverage: Record<string, Coverage> | undefined): CoverageSummary | null {
  const all = Object.values(coverage ?? {});
  const first = all[0];
  if (!first) return null;
  const kept = first.files.filter((f) => f.ignored === undefined).length;
  return { kept, reviewedByAll: kept - new Set(all.flatMap(uncovered)).size, ignored: first.ignored };
}
