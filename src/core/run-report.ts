/**
 * Everything the ledger holds about one run, as one plain value: the input of
 * the record, every export format, replay and the dashboard.
 */
import type { AttemptRow, FindingRow, Rerun, RoundRow, RunRow } from './ledger.js';
import { type DecideResult, type StageRow, stage, type VerdictRow } from './stage-results.js';
import { isBlockingSeverity, type Reproduction, type Severity, type StopReason } from './types.js';

export interface RunReport {
  run: RunRow;
  rounds: RoundRow[];
  stages: StageRow[];
  findings: FindingRow[];
  verdicts: VerdictRow[];
  attempts: AttemptRow[];
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

/** How a finding's claim was shown wrong: by the refuter before any rework, or by a person later. */
export type ShownWrong = 'refuted' | 'later' | null;

export function shownWrong(f: FindingRow): ShownWrong {
  if (f.refutation?.decision === 'refuted' && f.settlement?.decision !== 'upheld') return 'refuted';
  if (f.settlement?.decision === 'overturned') return 'later';
  return null;
}

/** One finding in the round-log format that `analyze` reads (DESIGN.md, "Simulator and analyzer"). */
export interface RoundLogFinding {
  id: string;
  reviewer: string;
  /** The severity the reviewer reported, so calibration sees inflation. */
  severity: Severity;
  /** The claim was shown wrong: refuted before rework, or overturned by a person later. A demotion is not. */
  overturned: boolean;
  /** Refuted before it cost a rework round (kept apart from a claim shown wrong later). */
  refuted: boolean;
  /** A procedural demotion to MINOR (scenario gate, scope lock, too few samples): says nothing about the claim's truth. */
  demotedBy: 'no_scenario' | 'scope_lock' | 'unreproduced' | null;
  /** Under repeat sampling: how many of the reviewer's samples found it (absent: one was drawn). */
  reproduction?: Reproduction;
  effectiveSeverity: Severity;
  /** It blocked when its round was decided (history: a later settlement does not change it). */
  blockedInRound: boolean;
  /** It still blocks as the run stands now. */
  blocking: boolean;
  file: string;
  line: number;
  claim: string;
  because: NotBlockingBecause;
}

/** What the live loop decided a round on (invariant 8), as the decide stage recorded it. */
export interface RoundLogEvidence {
  /** Progress of this round: true for round 1 (the baseline). */
  progress: boolean;
  checksNowPassing: string[];
  fixed: string[];
  settled: string[];
  shrank: boolean;
}

export interface RoundLogRound {
  round: number;
  head: string;
  /** Blockers open when the round was decided (the decide stage's count when recorded). */
  blocking: number;
  /** The progress evidence and the decision ("fix" or the stop reason); null when no decision was recorded. */
  evidence: RoundLogEvidence | null;
  decision: string | null;
  /** What the round's fix did when it changed nothing (fixNote); absent when it landed or there was none. */
  fixNote?: string;
  findings: RoundLogFinding[];
}

/** How every report says a run reviews its revision again: which rerun, who asked, why. */
export const rerunPhrase = (r: Rerun): string =>
  `rerun ${r.ordinal} of this revision, asked by ${r.by}: ${r.reason}`;

export interface RoundLog {
  runId: string;
  /**
   * How the run ended (null while it runs): a log whose run failed with no
   * verdict, or never decided its last round, never reads as converged.
   */
  status: string | null;
  outcome: string | null;
  /** The run's stop reason and the policy its stop rule used, so `analyze` can reproduce the stop. */
  stopReason: StopReason | null;
  stopWindow: number | null;
  shrinkRatio: number | null;
  /** Present when the run reviews its revision again on purpose: its ordinal, who asked and why. */
  rerun?: Rerun;
  rounds: RoundLogRound[];
}

/**
 * What a round's fix did when it changed nothing, in the words every output
 * of the round uses (the summary, the JSON, the round log), or null when its
 * fix landed or it had none: a fixer that made no edit (refused by its tool,
 * disputed every blocker), or an edit that could not land, must be said, or a
 * run ending on its budget reads as if fixes were tried and failed.
 */
export function fixNote(stages: readonly StageRow[] | undefined, round: number): string | null {
  const fix = stages && stage(stages, round, 'fix');
  if (!fix) return null;
  if (fix.notLanded) return `the fix did not land: ${fix.notLanded}`;
  if (fix.commit !== null) return null;
  const disputed = fix.disputes.length;
  return `the fixer made no edit${disputed > 0 ? ` (it disputed ${disputed} blocker(s))` : ''}`;
}

/** `{ fixNote }` when the round's fix has one, else nothing: a landed fix adds no field. */
export function fixNoteField(stages: readonly StageRow[] | undefined, round: number): { fixNote?: string } {
  const note = fixNote(stages, round);
  return note === null ? {} : { fixNote: note };
}

/** The decide stage recorded for `round` (parsed by its schema when read from the store). */
const recordedDecide = (stages: readonly StageRow[] | undefined, round: number): DecideResult | null =>
  (stages && stage(stages, round, 'decide')) ?? null;

/** The round log of a run: `revloop export --format rounds`, the escalation report and the record carry it. */
export function roundLog(
  report: Pick<RunReport, 'run' | 'rounds' | 'findings'> & Partial<Pick<RunReport, 'stages'>>,
): RoundLog {
  const rounds = [...report.rounds].sort((a, b) => a.round - b.round);
  const policy = report.run.snapshot?.policy;
  return {
    runId: report.run.id,
    status: report.run.status ?? null,
    outcome: report.run.outcome ?? null,
    stopReason: report.run.stopReason ?? null,
    stopWindow: policy?.stopWindow ?? null,
    shrinkRatio: policy?.shrinkRatio ?? null,
    ...(report.run?.rerun ? { rerun: report.run.rerun } : {}),
    rounds: rounds.map((r): RoundLogRound => {
      const decide = recordedDecide(report.stages, r.round);
      const open = decide ? new Set(decide.openBlockers.map((b) => b.id)) : null;
      const findings = report.findings
        .filter((f) => f.round === r.round)
        .sort((a, b) => (a.reviewer === b.reviewer ? a.index - b.index : a.reviewer < b.reviewer ? -1 : 1))
        .map((f): RoundLogFinding => {
          const because = notBlockingBecause(f);
          const wrong = shownWrong(f);
          return {
            id: f.id,
            reviewer: f.reviewer,
            severity: f.reported.severity,
            overturned: wrong !== null,
            refuted: wrong === 'refuted',
            demotedBy: f.gate.kind === 'demoted' ? f.gate.rule : null,
            effectiveSeverity: f.severity,
            // Without a recorded decision (a bare report) nothing tells when a settlement came: read it as it stands.
            blockedInRound: open ? open.has(f.id) : because === null,
            blocking: because === null,
            file: f.reported.file,
            line: f.reported.line,
            claim: f.reported.claim,
            because,
            ...(f.reproduction ? { reproduction: { seen: f.reproduction.seen, of: f.reproduction.of } } : {}),
          };
        });
      return {
        round: r.round,
        head: r.head,
        blocking: decide ? decide.blocking : findings.filter((f) => f.blockedInRound).length,
        evidence: decide
          ? {
              progress: decide.progress[decide.progress.length - 1] ?? true,
              checksNowPassing: decide.evidence?.checksNowPassing ?? [],
              fixed: decide.evidence?.fixed ?? [],
              settled: decide.evidence?.settled ?? [],
              shrank: decide.evidence?.shrank ?? false,
            }
          : null,
        decision: decide ? (decide.decision.kind === 'fix' ? 'fix' : decide.decision.stopReason) : null,
        ...fixNoteField(report.stages, r.round),
        findings,
      };
    }),
  };
}
