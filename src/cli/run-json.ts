/** The JSON shape `review`, `resume` and `status RUN` print (README, "review --json"). */
import type { RunReport } from '../core/run-report.js';
import { fixNoteField, roundLog } from '../core/run-report.js';
import { type ReviewResult, reviewerVerdicts, stage } from '../core/stage-results.js';
import { unansweredReviewers } from '../report/terminal.js';

export function runJson(report: RunReport, recordPath: string | null) {
  const { run } = report;
  const log = roundLog(report);
  return {
    runId: run.id,
    change: run.snapshot.change,
    status: run.status,
    outcome: run.outcome,
    stopReason: run.stopReason,
    reason: run.reason,
    detail: run.detail,
    // A review asked for again on purpose: its ordinal, who asked and why (null for a first run).
    rerun: run.rerun ?? null,
    base: run.snapshot.base,
    head: run.snapshot.head,
    finalHead: run.head,
    costUsd: Number(run.costUsd.toFixed(6)),
    rounds: log.rounds.map((r) => {
      const missing = unansweredReviewers(report, r.round);
      const review = stage(report.stages, r.round, 'review');
      const chunkOf = new Map(review?.verdicts.flatMap((v) => (v.chunk ? [[v.callKey, v.chunk]] : [])));
      return {
        round: r.round,
        revision: r.head,
        // A round without every verdict has no blocking count: null, never a clean-looking 0.
        reviewed: missing === null,
        unanswered: missing ?? [],
        blocking: missing === null ? r.blocking : null,
        verdicts: inConfiguredOrder(
          reviewerVerdicts(report.verdicts).filter((v) => v.round === r.round),
          review,
        ).map((v) => {
          // A chunked round has a verdict per reviewer and chunk: which part of the diff it judged.
          const chunk = chunkOf.get(v.callKey);
          const out = {
            reviewer: v.reviewer,
            verdict: v.reply.verdict,
            model: v.modelId,
            // Reused from an identical call answered earlier (not asked again): which one.
            ...(v.reusedFrom ? { reusedFrom: v.reusedFrom } : {}),
          };
          return chunk ? { ...out, chunk } : out;
        }),
        // Per reviewer, the files it reviewed and those ignored; findings dropped on ignored paths.
        coverage: review?.coverage ?? null,
        dropped: review?.dropped ?? [],
        // A fix that changed nothing (no edit, or an edit that could not land) is said where the round is.
        ...fixNoteField(report.stages, r.round),
        findings: r.findings.map((f) => {
          const row = report.findings.find((x) => x.id === f.id);
          return {
            ...f,
            gate: row?.gate ?? null,
            refutation: row?.refutation
              ? {
                  decision: row.refutation.decision,
                  by: row.refutation.by,
                  reason: row.refutation.reason,
                  // A refutation answered from memory names the first-hand decision it repeats.
                  ...(row.refutation.origin ? { origin: row.refutation.origin } : {}),
                }
              : null,
            dispute: row?.dispute ?? null,
            settlement: row?.settlement ?? null,
          };
        }),
      };
    }),
    record: recordPath ?? run.recordPath,
  };
}

/**
 * A round's verdicts as its review recorded them (configured order, then chunk), not in
 * the order they arrived: reviewers run side by side. Ledger order when no review was recorded.
 */
function inConfiguredOrder<V extends { callKey: string }>(
  verdicts: V[],
  review: Pick<ReviewResult, 'verdicts'> | undefined,
): V[] {
  if (!review) return verdicts;
  const at = new Map(review.verdicts.map((v, i) => [v.callKey, i]));
  const pos = (v: V) => at.get(v.callKey) ?? Number.MAX_SAFE_INTEGER;
  return [...verdicts].sort((a, b) => pos(a) - pos(b));
}
