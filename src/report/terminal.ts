/** A plain-text run summary for the terminal: verdict line, then each round's findings by severity. */
import { isBlocker, type RunReport } from '../core/run-report.js';
import { lineRange, sortFindings, verdictPhrase, whyNotBlocking } from './findings.js';

/**
 * One line of model text: line breaks folded, so a reply cannot forge a line
 * of its own. Escapes are the CLI's (src/cli/terminal-safe.ts, at the write).
 */
const oneLine = (s: string): string => s.replace(/\s+/g, ' ');

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
      const tag = isBlocker(f) ? 'BLOCKS' : why === 'MINOR' ? '' : `[${oneLine(why ?? '')}]`;
      out.push(
        `    ${f.severity.padEnd(8)} ${oneLine(lineRange(f))}  ${oneLine(f.reviewer)}  ${oneLine(f.reported.claim)}${tag ? `  ${tag}` : ''}`,
      );
    }
  }
  if (run.recordPath) out.push(`  record ${run.recordPath}`);
  return `${out.join('\n')}\n`;
}
