/**
 * A failing check never ends clear: a configured check that fails on the
 * revision under review, having passed on an earlier revision of the same run
 * (the change as admitted, or an earlier fix), is a blocker of the round. The
 * fixer's edit that removed a reviewer's blocker but broke the tests is then
 * not clear, whatever the next reviewer says. A check that never passed in the
 * run is evidence for progress only, as before.
 */
import type { ChecksResult } from './stage-results.js';

/** A check that passed earlier in the run and fails now. */
export interface BrokenCheck {
  name: string;
  /** Its exit code now (null: it could not start, or was killed at its timeout). */
  exitCode: number | null;
  /** The latest earlier revision of the run it passed on. */
  passedAt: string;
}

/**
 * `runs` are the run's checks stages in round order (round 0 first); the last
 * one whose head is `head` is the revision under review. Checks of a revision
 * with no result at `head` (none configured, or not run yet) break nothing.
 */
export function brokenChecks(runs: readonly ChecksResult[], head: string): BrokenCheck[] {
  const at = runs.findLastIndex((r) => r.head === head);
  const now = runs[at];
  if (!now) return [];
  const out: BrokenCheck[] = [];
  for (const c of now.results) {
    if (c.passed) continue;
    const earlier = runs
      .slice(0, at)
      .findLast((r) => r.head !== head && r.results.some((x) => x.name === c.name && x.passed));
    if (earlier) out.push({ name: c.name, exitCode: c.exitCode, passedAt: earlier.head });
  }
  return out;
}
