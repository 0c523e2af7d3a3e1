/**
 * What a publication reads of the ledger: one run (its RunReport, as every
 * export reads it) and the settlements of the other runs of its change.
 * Nothing here changes how the loop records.
 */
import { coverageSummary } from '../core/coverage.js';
import type { FindingRow } from '../core/ledger.js';
import { reuseLine, reuseSummary } from '../core/reuse-summary.js';
import { notBlockingBecause, type RunReport } from '../core/run-report.js';
import { finalCoverage } from '../core/stage-results.js';
import { fingerprint, sortFindings, whyNotBlocking } from '../report/findings.js';
import type { PriorSettlement, RunView, ViewFinding } from './types.js';

function viewFinding(f: FindingRow): ViewFinding {
  return {
    id: f.id,
    fingerprint: fingerprint(f),
    round: f.round,
    revision: f.revision,
    reviewer: f.reviewer,
    severity: f.severity,
    file: f.reported.file,
    line: f.reported.line,
    endLine: Math.max(f.reported.line, f.reported.endLine ?? f.reported.line),
    claim: f.reported.claim,
    failureScenario: f.reported.failureScenario ?? null,
    violatedClause: f.reported.violatedClause ?? null,
    because: notBlockingBecause(f),
    why: whyNotBlocking(f),
    ...(f.reproduction ? { reproduction: f.reproduction } : {}),
  };
}

/**
 * The fingerprints refuted or overturned in other runs of the change
 * (invariant 17: not posted again). A later upholding settlement wins, as
 * in the ledger's carry-over.
 */
export function priorSettlements(others: { runId: string; findings: FindingRow[] }[]): PriorSettlement[] {
  const out = new Map<string, PriorSettlement & { at: number }>();
  const upheld = new Set<string>();
  for (const { runId, findings } of others)
    for (const f of findings) {
      const fp = fingerprint(f);
      if (f.settlement?.decision === 'upheld') upheld.add(fp);
      else if (f.settlement?.decision === 'overturned')
        out.set(fp, {
          fingerprint: fp,
          runId,
          kind: 'overturned',
          by: f.settlement.by,
          reason: f.settlement.note ?? '',
          at: f.settlement.at,
        });
      else if (f.refutation?.decision === 'refuted' && !out.has(fp))
        out.set(fp, {
          fingerprint: fp,
          runId,
          kind: 'refuted',
          by: f.refutation.by,
          reason: f.refutation.reason,
          at: -1,
        });
    }
  return [...out.values()]
    .filter((p) => !upheld.has(p.fingerprint))
    .map(({ at: _at, ...p }) => p)
    .sort((a, b) => (a.fingerprint < b.fingerprint ? -1 : 1));
}

export function runView(report: RunReport, prior: PriorSettlement[] = []): RunView {
  const run = report.run;
  const snap = run.snapshot;
  const rounds = [...report.rounds]
    .sort((a, b) => a.round - b.round)
    .map((r) => ({ round: r.round, head: r.head }));
  const answered = new Set(
    report.verdicts
      .filter((v) => v.stage === 'review' && v.role === 'reviewer')
      .map((v) => `${v.round}\u0000${v.reviewer}`),
  );
  return {
    runId: run.id,
    change: snap.change,
    status: run.status,
    outcome: run.outcome,
    stopReason: run.stopReason,
    reason: run.reason,
    detail: run.detail,
    admittedHead: snap.head,
    finalHead: run.head,
    base: snap.base,
    rounds,
    findings: sortFindings(report.findings).map(viewFinding),
    costUsd: run.costUsd,
    costBudgetUsd: snap.budgets.costUsd,
    reviewers: snap.reviewers.map((r) => r.name),
    calls: {
      answered: answered.size,
      expected: rounds.filter((r) => r.round > 0).length * snap.reviewers.length,
    },
    files: coverageSummary(finalCoverage(report.stages)),
    reused: reusedLine(report),
    prior,
  };
}

function reusedLine(report: RunReport): string | null {
  const s = reuseSummary(report.verdicts);
  return s ? reuseLine(s) : null;
}
