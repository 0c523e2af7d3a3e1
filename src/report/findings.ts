/**
 * What every report format says about a finding: which round counts, why a
 * finding does not block, and a fingerprint that is stable across runs.
 */
import { findingFingerprint } from '../core/keys.js';
import type { FindingRow } from '../core/ledger.js';
import {
  type NotBlockingBecause,
  notBlockingBecause,
  type RunReport,
  waitsForPerson,
} from '../core/run-report.js';
import { reproductionText } from '../core/samples.js';
import type { Severity } from '../core/types.js';
import { sha256 } from '../io/hash.js';

export const SEVERITY_ORDER: readonly Severity[] = ['MAJOR', 'MODERATE', 'MINOR'];

/** The highest round number with findings or a round row, or null for a run with no rounds. */
export function lastRoundNo(report: RunReport): number | null {
  const nums = [...report.rounds.map((r) => r.round), ...report.findings.map((f) => f.round)];
  return nums.length ? Math.max(...nums) : null;
}

/** Findings of the last round: what the final revision still carries. Sorted for stable output. */
export function finalFindings(report: RunReport): FindingRow[] {
  const last = lastRoundNo(report);
  return sortFindings(report.findings.filter((f) => f.round === last));
}

export function sortFindings(findings: FindingRow[]): FindingRow[] {
  return [...findings].sort(
    (a, b) =>
      a.round - b.round ||
      SEVERITY_ORDER.indexOf(a.severity) - SEVERITY_ORDER.indexOf(b.severity) ||
      cmp(a.reported.file, b.reported.file) ||
      a.reported.line - b.reported.line ||
      cmp(a.reviewer, b.reviewer) ||
      a.index - b.index,
  );
}

/** Plain words for why a finding does not block, or null for a blocker. */
export function whyNotBlocking(f: FindingRow): string | null {
  const because: NotBlockingBecause = notBlockingBecause(f);
  switch (because) {
    case null:
      return null;
    case 'minor':
      return 'MINOR';
    case 'overturned':
      return `overturned by ${f.settlement?.by ?? 'a person'}${f.settlement?.note ? `: ${f.settlement.note}` : ''}`;
    case 'refuted':
      // A refutation answered from memory says itself where and by whom it was made.
      return f.refutation?.origin
        ? f.refutation.reason
        : `refuted by ${f.refutation?.by ?? 'the refuter'}: ${f.refutation?.reason ?? ''}`;
    case 'demoted':
      if (f.gate.kind === 'demoted' && f.gate.rule === 'scope_lock')
        return `demoted from ${f.gate.from} (scope lock: line unchanged since ${f.gate.passedAt.slice(0, 7)} passed)`;
      if (f.gate.kind === 'demoted' && f.gate.rule === 'unreproduced')
        return `demoted from ${f.gate.from} (${reproductionText(f.gate)}, too few to block)`;
      return `demoted from ${f.gate.kind === 'demoted' ? f.gate.from : f.reported.severity} (no failure scenario or violated clause)`;
  }
}

/** What a person runs to clear a blocker only they can (null for any other finding). */
export const settleCommand = (f: FindingRow): string | null =>
  waitsForPerson(f) ? `revloop settle ${f.id} --by NAME --decision upheld|overturned` : null;

/** The finding's fingerprint (src/core/keys.ts): stable across runs, revisions and rewording of case or punctuation. */
export const fingerprint = (f: FindingRow): string =>
  findingFingerprint(f.reviewer, f.reported.file, f.reported.claim, sha256);

export const lineRange = (f: FindingRow): string =>
  f.reported.endLine && f.reported.endLine !== f.reported.line
    ? `${f.reported.file}:${f.reported.line}-${f.reported.endLine}`
    : `${f.reported.file}:${f.reported.line}`;

/** Status, outcome and stop reason in one phrase, e.g. "completed: findings (no_progress)". */
export function verdictPhrase(report: RunReport): string {
  const r = report.run;
  if (r.status !== 'completed') return `${r.status}${r.reason ? `: ${r.reason}` : ''}`;
  return `completed: ${r.outcome}${r.stopReason ? ` (${r.stopReason})` : ''}`;
}

const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
