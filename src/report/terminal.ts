/** A plain-text run summary for the terminal: verdict line, then each round's findings by severity. */
import { isBlocker, type RunReport } from '../core/run-report.js';
import { lineRange, settleCommand, sortFindings, verdictPhrase, whyNotBlocking } from './findings.js';

/** One line of model text: newlines folded, control characters dropped (no terminal escapes). */
const oneLine = (s: string): string => s.replace(/\s+/g, ' ').replace(/[\u0000-\u001f\u007f-\u009f]/g, '');

export function renderRunSummary(report: RunReport): string {
  const run = report.run;
  const snap = run.snapshot;
  const out = [
    `revloop run ${run.id}: ${verdictPhrase(report)}`,
    `  head ${run.head.slice(0, 7)}  base ${snap.base.slice(0, 7)}  rounds ${run.roundsDone}  cost $${run.costUsd.toFixed(2)}`,
  ];
  if (run.detail) out.push(`  ${oneLine(run.detail)}`);
  const rounds = [...report.rounds].sort((a, b) => a.round - b.round);
  for (const r of rounds) {
    const findings = sortFindings(report.findings.filter((f) => f.round === r.round));
    const blocking = findings.filter(isBlocker).length;
    out.push(
      `  round ${r.round}  ${r.head.slice(0, 7)}  ${blocking} blocking, ${findings.length} finding(s)`,
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
      out.push(
        `    ${f.severity.padEnd(8)} ${lineRange(f)}  ${f.reviewer}  ${oneLine(f.reported.claim)}${tag ? `  ${tag}` : ''}`,
      );
    }
  }
  if (run.recordPath) out.push(`  record ${run.recordPath}`);
  return `${out.join('\n')}\n`;
}
