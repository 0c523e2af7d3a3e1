/**
 * Invariant 8: progress is defined before the loop. A round counts as progress
 * only on evidence: a failing check now passes, an accepted blocker is fixed
 * with evidence, a disputed blocker is settled by a named person, or the diff
 * shrinks by the configured rule. A lower self-reported severity or a
 * reworded finding is not evidence, so a count that falls only through them
 * is not progress.
 */
import type { FindingRow } from './ledger.js';

export interface CheckResult {
  name: string;
  /** null when the check could not start or was killed. */
  exitCode: number | null;
  passed: boolean;
  /** The last lines of its output. */
  tail: string;
  durationMs: number;
  /** Set when it ran under the confined runner; absent: unconfined. */
  confined?: true;
}

export interface LineRange {
  start: number;
  end: number;
}

/** A blocker of the previous round, with what git says the fix did to it. */
export interface PriorBlocker {
  id: string;
  reviewer: string;
  file: string;
  /** The fix commit changed at least one of its lines. */
  touchedByFix: boolean;
  /** Where its lines lie at the new revision (the hunk's new side when changed); null when the file is gone. */
  newRange: LineRange | null;
  /** Configured checks its text names; each must pass after the fix. */
  citedChecks: string[];
  /** The fixer disputed it instead of fixing it. */
  disputed: boolean;
}

export interface RaisedFinding {
  reviewer: string;
  file: string;
  line: number;
  endLine: number;
}

export interface ProgressFacts {
  /** Checks on the previous revision and on this one (null when none are configured). */
  checksBefore: CheckResult[] | null;
  checksAfter: CheckResult[] | null;
  priorBlockers: PriorBlocker[];
  /** Every finding raised in this round, at any severity: a re-raise at a lower severity is still a re-raise. */
  raised: RaisedFinding[];
  /** Disputed findings a named person settled since the previous evaluation. */
  settledSince: string[];
  /** Changed lines (added + deleted) of the run's diff before and after the fix. */
  diffLinesBefore: number;
  diffLinesAfter: number;
  shrinkRatio: number;
}

export interface ProgressEvidence {
  progress: boolean;
  checksNowPassing: string[];
  fixed: string[];
  settled: string[];
  shrank: boolean;
}

/** Lines either side of a blocker's range within which a finding by the same reviewer is a re-raise. */
const RERAISE_SLACK = 2;

export function isReRaised(b: PriorBlocker, raised: RaisedFinding[]): boolean {
  if (b.newRange === null) return false;
  const { start, end } = b.newRange;
  return raised.some(
    (f) =>
      f.reviewer === b.reviewer &&
      f.file === b.file &&
      f.line <= end + RERAISE_SLACK &&
      f.endLine >= start - RERAISE_SLACK,
  );
}

export function evaluateProgress(facts: ProgressFacts): ProgressEvidence {
  const before = new Map((facts.checksBefore ?? []).map((c) => [c.name, c.passed]));
  const after = new Map((facts.checksAfter ?? []).map((c) => [c.name, c.passed]));
  const checksNowPassing = [...after]
    .filter(([name, ok]) => ok && before.get(name) === false)
    .map(([name]) => name);

  const fixed = facts.priorBlockers
    .filter(
      (b) =>
        !b.disputed &&
        b.touchedByFix &&
        !isReRaised(b, facts.raised) &&
        b.citedChecks.every((name) => after.get(name) === true),
    )
    .map((b) => b.id);

  // The epsilon keeps float error off the boundary: 10 -> 1 lines at ratio 0.9 is exactly 90% fewer.
  const shrank =
    facts.diffLinesBefore > 0 &&
    facts.diffLinesBefore - facts.diffLinesAfter >= facts.diffLinesBefore * facts.shrinkRatio - 1e-9;
  const settled = [...facts.settledSince];
  return {
    progress: checksNowPassing.length > 0 || fixed.length > 0 || settled.length > 0 || shrank,
    checksNowPassing,
    fixed,
    settled,
    shrank,
  };
}

/** Configured check names a finding's text mentions (as a whole word). */
export function citedChecks(text: string, checkNames: string[]): string[] {
  return checkNames.filter((n) =>
    new RegExp(`(^|[^\\w-])${n.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}($|[^\\w-])`, 'i').test(text),
  );
}

/** Every finding a round raised, at any severity, as the re-raise test reads it (the controller's own excluded). */
export function raisedIn(
  findings: readonly FindingRow[],
  round: number,
  controllerReviewer: string,
): RaisedFinding[] {
  return findings
    .filter((f) => f.round === round && f.reviewer !== controllerReviewer)
    .map((f) => ({
      reviewer: f.reviewer,
      file: f.reported.file,
      line: f.reported.line,
      endLine: f.reported.endLine ?? f.reported.line,
    }));
}
