/**
 * Builds the dashboard's views of runs from the ledger's rows: the list row,
 * and one run as a timeline of rounds (verdicts, findings with gating and
 * refutation, the decision and its progress evidence, the fix, the checks).
 */
import { analyzeParsed } from '../analyze/analyze.js';
import { type Coverage, coverageSummary, uncovered } from '../core/coverage.js';
import type { FindingRow, RunRow } from '../core/ledger.js';
import { notBlockingBecause, type RunReport, roundLog } from '../core/run-report.js';
import {
  type DroppedFinding,
  type ReviewResult,
  type StageResults,
  type StageRow,
  stage as stageOf,
} from '../core/stage-results.js';
import { isTerminal, type Stage } from '../core/types.js';
import type {
  CalibrationRun,
  CalibrationView,
  CoverageView,
  FindingView,
  RoundView,
  RunDetail,
  RunSummary,
  VerdictView,
} from './view-types.js';

export function runSummary(r: RunRow): RunSummary {
  return {
    id: r.id,
    change: r.snapshot.change,
    status: r.status,
    outcome: r.outcome,
    stopReason: r.stopReason,
    reason: r.reason,
    detail: r.detail,
    rounds: r.roundsDone,
    costUsd: r.costUsd,
    base: r.snapshot.base,
    head: r.head,
    createdAt: r.createdAt,
    endedAt: r.endedAt,
    active: !isTerminal(r.status),
  };
}

export function findingView(f: FindingRow): FindingView {
  const because = notBlockingBecause(f);
  return {
    id: f.id,
    round: f.round,
    reviewer: f.reviewer,
    revision: f.revision,
    severity: f.severity,
    reported: f.reported,
    gate: f.gate,
    refutation: f.refutation,
    dispute: f.dispute,
    settlement: f.settlement,
    blocking: because === null,
    because,
    ...(f.reproduction ? { reproduction: f.reproduction } : {}),
  };
}

const stageResult = <S extends Stage>(stages: StageRow[], round: number, stage: S): StageResults[S] | null =>
  stageOf(stages, round, stage) ?? null;

const SEVERITY_ORDER = { MAJOR: 0, MODERATE: 1, MINOR: 2 } as const;

/**
 * One verdict per reviewer, in the review's (configured) order: a chunked
 * review's verdicts (a hundred calls on a 20 MB change) are folded into one,
 * findings if any part had some, with the count of parts.
 */
export function verdictViews(verdicts: ReviewResult['verdicts']): VerdictView[] {
  const out = new Map<string, VerdictView>();
  for (const v of verdicts) {
    const seen = out.get(v.reviewer);
    const found = v.verdict === 'findings' ? 1 : 0;
    const samples = v.sample !== undefined ? { samples: v.sample + 1 } : {};
    if (!seen) {
      out.set(v.reviewer, {
        reviewer: v.reviewer,
        verdict: v.verdict,
        modelId: v.modelId,
        ...(v.chunk ? { parts: { count: 1, withFindings: found } } : {}),
        ...samples,
      });
      continue;
    }
    if (v.verdict === 'findings') seen.verdict = 'findings';
    seen.modelId ??= v.modelId;
    if (v.sample !== undefined) seen.samples = Math.max(seen.samples ?? 1, v.sample + 1);
    // A part's later samples are the same part again.
    if (seen.parts && !v.sample) {
      seen.parts.count++;
      seen.parts.withFindings += found;
    }
  }
  return [...out.values()];
}

/** Most files named as not reviewed, per reviewer (a run that stopped mid-review can leave thousands). */
const MISSING_SHOWN = 5;

export function coverageView(coverage: Record<string, Coverage>, dropped: DroppedFinding[]): CoverageView {
  const summary = coverageSummary(coverage);
  return {
    kept: summary?.kept ?? 0,
    reviewers: Object.entries(coverage).map(([reviewer, c]) => ({
      reviewer,
      reviewed: c.reviewed.length,
      missing: uncovered(c).slice(0, MISSING_SHOWN),
    })),
    ignored: summary?.ignored ?? [],
    dropped: dropped.map((d) => ({ reviewer: d.reviewer, file: d.file, rule: d.rule })),
  };
}

export function runDetail(report: RunReport, now: number): RunDetail {
  const { run, stages } = report;
  const s = run.snapshot;
  const rounds: RoundView[] = [...report.rounds]
    .sort((a, b) => a.round - b.round)
    .map((r) => {
      const review = stageResult(stages, r.round, 'review');
      const refute = stageResult(stages, r.round, 'refute');
      const decide = stageResult(stages, r.round, 'decide');
      const fix = stageResult(stages, r.round, 'fix');
      const checks = stageResult(stages, r.round, 'checks');
      const findings = report.findings
        .filter((f) => f.round === r.round)
        .map(findingView)
        .sort(
          (a, b) =>
            Number(b.blocking) - Number(a.blocking) ||
            SEVERITY_ORDER[a.reported.severity] - SEVERITY_ORDER[b.reported.severity] ||
            (a.reviewer < b.reviewer ? -1 : a.reviewer > b.reviewer ? 1 : 0),
        );
      return {
        round: r.round,
        head: r.head,
        startedAt: r.startedAt,
        verdicts: review ? verdictViews(review.verdicts) : null,
        coverage: review?.coverage ? coverageView(review.coverage, review.dropped ?? []) : null,
        findings,
        refuter: refute?.refuter ?? s.refuter?.name ?? null,
        decide: decide
          ? {
              blocking: decide.blocking,
              openBlockers: decide.openBlockers,
              evidence: decide.evidence,
              progress: decide.progress[decide.progress.length - 1] ?? null,
              decision: decide.decision,
            }
          : null,
        fix: fix
          ? { from: fix.from, commit: fix.commit, disputes: fix.disputes, unknownIds: fix.unknownIds }
          : null,
        checks: checks?.results ?? null,
        troubles: report.attempts
          .filter((a) => a.round === r.round && a.class !== 'ok')
          .sort((a, b) => a.startedAt - b.startedAt)
          .map((a) => ({
            stage: a.stage,
            role: a.role,
            reviewer: a.reviewer,
            attemptNo: a.attemptNo,
            class: a.class,
            detail: a.detail,
          })),
      };
    });
  const lastDecide = [...rounds].reverse().find((r) => r.decide)?.decide ?? null;
  return {
    now,
    run: {
      ...runSummary(run),
      mergeBase: s.mergeBase,
      snapshotHead: s.head,
      configFrom: s.configFrom,
      reviewers: s.reviewers.map((x) => x.name),
      refuter: s.refuter?.name ?? null,
      fixer: s.fixer?.name ?? null,
      checkNames: s.checks.map((c) => c.name),
      budgets: s.budgets,
      policy: s.policy,
      recordPath: run.recordPath,
    },
    baselineChecks: stageResult(stages, 0, 'checks')?.results ?? null,
    baseChecks: stageResult(stages, 0, 'checks')?.base ?? null,
    rounds,
    escalation:
      run.stopReason === 'no_progress' ||
      run.stopReason === 'awaiting_settlement' ||
      run.stopReason === 'upheld'
        ? {
            blockingCounts: rounds.flatMap((r) => (r.decide ? [r.decide.blocking] : [])),
            openBlockers: lastDecide?.openBlockers.map((b) => b.id) ?? [],
          }
        : null,
  };
}

/**
 * The calibration ledger: each run's round log through `analyze` (the same
 * module as `revloop analyze`), and all of them together as one log.
 */
export function calibration(reports: Pick<RunReport, 'run' | 'rounds' | 'findings'>[]): CalibrationView {
  const ordered = [...reports].sort((a, b) => a.run.createdAt - b.run.createdAt);
  const logs = ordered.map((r) => roundLog(r));
  const runs: CalibrationRun[] = ordered.map((r, i) => ({
    id: r.run.id,
    change: r.run.snapshot.change,
    createdAt: r.run.createdAt,
    reviewers: analyzeParsed(logs[i]!).reviewers,
  }));
  const overall = analyzeParsed({ rounds: logs.flatMap((l) => l.rounds) }).reviewers;
  return { overall, runs };
}
