/**
 * Everything the ledger holds about one run, as one plain value: the input of
 * the record, every export format, replay and the dashboard.
 */
import type { AttemptRow, EventRow, FindingRow, RoundRow, RunRow, StageRow, VerdictRow } from './ledger.js';
import { isBlockingSeverity, type Severity } from './types.js';

export interface RunReport {
  run: RunRow;
  rounds: RoundRow[];
  stages: StageRow[];
  findings: FindingRow[];
  verdicts: VerdictRow[];
  attempts: AttemptRow[];
  events: EventRow[];
}

/** Why a finding does not block, or null when it does. */
export type NotBlockingBecause = 'minor' | 'demoted' | 'refuted' | 'overturned' | null;

export function notBlockingBecause(f: FindingRow): NotBlockingBecause {
  if (f.settlement?.decision === 'overturned') return 'overturned';
  if (f.refutation?.decision === 'refuted' && f.settlement?.decision !== 'upheld') return 'refuted';
  if (f.gate.kind === 'demoted') return 'demoted';
  if (!isBlockingSeverity(f.severity)) return 'minor';
  return null;
}

/** A blocker: a MAJOR or MODERATE finding that survived gating, refutation and settlement. */
export const isBlocker = (f: FindingRow): boolean => notBlockingBecause(f) === null;

/** Reviewer name of the controller's own findings (a protected path edited). */
export const CONTROLLER_REVIEWER = 'revloop';

/**
 * A blocker only a named person can clear, still unsettled: an edit of a
 * protected path, or a blocker the fixer disputed. Every report names its id,
 * since `revloop settle` needs it.
 */
export const waitsForPerson = (f: FindingRow): boolean =>
  isBlocker(f) && f.settlement === null && (f.reviewer === CONTROLLER_REVIEWER || f.dispute !== null);

/** One finding in the round-log format that `analyze` reads (DESIGN.md, "Simulator and analyzer"). */
export interface RoundLogFinding {
  id: string;
  reviewer: string;
  /** The severity the reviewer reported, so calibration sees inflation. */
  severity: Severity;
  /** Demoted by gating, refuted, or overturned by a person: the reviewer's claim did not stand as raised. */
  overturned: boolean;
  effectiveSeverity: Severity;
  blocking: boolean;
  file: string;
  line: number;
  claim: string;
  because: NotBlockingBecause;
}

export interface RoundLog {
  runId: string;
  rounds: { round: number; head: string; blocking: number; findings: RoundLogFinding[] }[];
}

/** The round log of a run: `revloop export --format rounds`, the escalation report and the record carry it. */
export function roundLog(report: Pick<RunReport, 'run' | 'rounds' | 'findings'>): RoundLog {
  const rounds = [...report.rounds].sort((a, b) => a.round - b.round);
  return {
    runId: report.run.id,
    rounds: rounds.map((r) => {
      const findings = report.findings
        .filter((f) => f.round === r.round)
        .sort((a, b) => (a.reviewer === b.reviewer ? a.index - b.index : a.reviewer < b.reviewer ? -1 : 1))
        .map((f): RoundLogFinding => {
          const because = notBlockingBecause(f);
          return {
            id: f.id,
            reviewer: f.reviewer,
            severity: f.reported.severity,
            overturned: because === 'demoted' || because === 'refuted' || because === 'overturned',
            effectiveSeverity: f.severity,
            blocking: because === null,
            file: f.reported.file,
            line: f.reported.line,
            claim: f.reported.claim,
            because,
          };
        });
      return { round: r.round, head: r.head, blocking: findings.filter((f) => f.blocking).length, findings };
    }),
  };
}
