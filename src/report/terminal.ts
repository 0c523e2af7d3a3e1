/** A plain-text run summary for the terminal: verdict line, then each round's findings by severity. */
import { coverageSummary, uncovered } from '../core/coverage.js';
import { reuseLine, reuseSummary } from '../core/reuse-summary.js';
import { fixNote, isBlocker, type RunReport, rerunPhrase } from '../core/run-report.js';
import { reproductionText } from '../core/samples.js';
import { stage } from '../core/stage-results.js';
import { lineRange, settleCommand, sortFindings, verdictPhrase, whyNotBlocking } from './findings.js';

/**
 * One line of model text: line breaks folded, so a reply cannot forge a line
 * of its own. Escapes are the CLI's (src/cli/terminal-safe.ts, at the write).
 */
const oneLine = (s: string): string => s.replace(/\s+/g, ' ');

/**
 * Reviewers of the snapshot with no recorded verdict in round `round`, or
 * null when the round's review completed. A round nobody finished reviewing
 * has no blocking count to show: "0 blocking" would read as clean (invariant 18).
 */
export function unansweredReviewers(
  report: Pick<RunReport, 'run' | 'stages' | 'verdicts' | 'findings'>,
  round: number,
): string[] | null {
  // Findings are recorded with the review stage's completion, so either one says it completed.
  if (report.stages.some((s) => s.round === round && s.stage === 'review')) return null;
  if (report.findings.some((f) => f.round === round)) return null;
  const answered = new Set(
    report.verdicts.filter((v) => v.round === round && v.role === 'reviewer').map((v) => v.reviewer),
  );
  return report.run.snapshot.reviewers.map((r) => r.name).filter((n) => !answered.has(n));
}

/**
 * What a round's review left out or split, after its counts: the
 * files reviewed of those kept, the ignored ones, the parts of a chunked
 * review. Empty for a review of the whole diff in one call, nothing ignored.
 */
function coverageNote(report: Pick<RunReport, 'stages'>, round: number): string {
  const review = stage(report.stages, round, 'review');
  const summary = coverageSummary(review?.coverage);
  if (!review?.coverage || !summary) return '';
  const parts = new Set(review.verdicts.flatMap((v) => (v.chunk ? [v.chunk.index] : []))).size;
  if (summary.ignored.length === 0 && parts === 0) return '';
  const short = Object.entries(review.coverage).filter(([, c]) => uncovered(c).length > 0);
  const reviewed =
    short.length === 0
      ? `${summary.kept} file(s) reviewed`
      : `coverage incomplete: ${short.map(([name, c]) => `${oneLine(name)} ${c.reviewed.length} of ${summary.kept}`).join(', ')}`;
  return [
    `  ·  ${reviewed}`,
    parts > 0 ? ` in ${parts} parts` : '',
    summary.ignored.length > 0 ? `, ${summary.ignored.length} ignored` : '',
  ].join('');
}

/** The round's fix note (core/run-report.ts), as one line of the summary. */
function fixerNote(report: Pick<RunReport, 'stages'>, round: number): string | null {
  const note = fixNote(report.stages, round);
  return note === null ? null : oneLine(note);
}

/** Blockers of the round the refuter was not asked about (past `review.maxRefutedPerReply`): they stand. */
function overCapNote(report: Pick<RunReport, 'stages'>, round: number): string {
  const n = stage(report.stages, round, 'refute')?.overCap?.length ?? 0;
  return n > 0 ? `  ·  ${n} blocker(s) past the refuter's per-reply cap, not refuted` : '';
}

export function renderRunSummary(report: RunReport): string {
  const run = report.run;
  const snap = run.snapshot;
  const out = [
    `revloop run ${run.id}: ${verdictPhrase(report)}`,
    `  head ${run.head.slice(0, 7)}  base ${snap.base.slice(0, 7)}  rounds ${run.roundsDone}  cost $${run.costUsd.toFixed(2)}`,
  ];
  if (run.rerun) out.push(`  ${oneLine(rerunPhrase(run.rerun))}`);
  const reused = reuseSummary(report.verdicts);
  if (reused) out.push(`  ${oneLine(reuseLine(reused))}`);
  if (run.detail) out.push(`  ${oneLine(run.detail)}`);
  const rounds = [...report.rounds].sort((a, b) => a.round - b.round);
  for (const r of rounds) {
    const findings = sortFindings(report.findings.filter((f) => f.round === r.round));
    const blocking = findings.filter(isBlocker).length;
    const missing = unansweredReviewers(report, r.round);
    out.push(
      missing
        ? `  round ${r.round}  ${r.head.slice(0, 7)}  not reviewed: ${missing.length ? `no verdict from ${missing.map(oneLine).join(', ')}` : 'the review did not complete'}`
        : `  round ${r.round}  ${r.head.slice(0, 7)}  ${blocking} blocking, ${findings.length} finding(s)${coverageNote(report, r.round)}${overCapNote(report, r.round)}`,
    );
    for (const f of findings) {
      const why = whyNotBlocking(f);
      const settle = settleCommand(f);
      const tag = isBlocker(f)
        ? settle
          ? `BLOCKS, needs a person: ${settle}`
          : 'BLOCKS'
        : why === 'MINOR'
          ? ''
          : `[${oneLine(why ?? '')}]`;
      // A demotion for too few samples says the count already.
      const seen = f.reproduction && f.gate.kind === 'kept' ? `  (${reproductionText(f.reproduction)})` : '';
      out.push(
        `    ${f.severity.padEnd(8)} ${oneLine(lineRange(f))}  ${oneLine(f.reviewer)}  ${oneLine(f.reported.claim)}${seen}${tag ? `  ${tag}` : ''}`,
      );
    }
    const fixNote = fixerNote(report, r.round);
    if (fixNote) out.push(`    ${fixNote}`);
  }
  if (run.recordPath) out.push(`  record ${run.recordPath}`);
  return `${out.join('\n')}\n`;
}
