/**
 * A failing check never ends clear: a configured check that fails on the
 * revision under review, having passed on an earlier revision of the same run
 * (the change as admitted, or an earlier fix) or at the base the change starts
 * from, is a blocker of the round. The fixer's edit that removed a reviewer's
 * blocker but broke the tests is then not clear, whatever the next reviewer
 * says; nor is a change whose first revision breaks them. A check that passed
 * nowhere (it fails at the base too) is evidence for progress only, as before.
 */
import type { ChecksResult } from './stage-results.js';

/** A check that passed earlier (in the run, or at the base) and fails now. */
export interface BrokenCheck {
  name: string;
  /** Its exit code now (null: it could not start, or was killed at its timeout). */
  exitCode: number | null;
  /** The latest earlier revision of the run it passed on, else the base commit. */
  passedAt: string;
  /** Set when it passed on no revision of the run, only at the base. */
  atBase?: true;
}

/**
 * `runs` are the run's checks stages in round order (round 0 first); the last
 * one whose head is `head` is the revision under review. Checks of a revision
 * with no result at `head` (none configured, or not run yet) break nothing.
 * The base's results are those round 0 recorded (`ChecksResult.base`): read,
 * never run again.
 */
export function brokenChecks(runs: readonly ChecksResult[], head: string): BrokenCheck[] {
  const at = runs.findLastIndex((r) => r.head === head);
  const now = runs[at];
  if (!now) return [];
  const base = runs.find((r) => r.base)?.base;
  const out: BrokenCheck[] = [];
  for (const c of now.results) {
    if (c.passed) continue;
    const passed = (x: { name: string; passed: boolean }) => x.name === c.name && x.passed;
    const earlier = runs.slice(0, at).findLast((r) => r.head !== head && r.results.some(passed));
    if (earlier) out.push({ name: c.name, exitCode: c.exitCode, passedAt: earlier.head });
    else if (base?.results.some(passed))
      out.push({ name: c.name, exitCode: c.exitCode, passedAt: base.commit, atBase: true });
  }
  return out;
}
