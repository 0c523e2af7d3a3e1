/**
 * Invariant 8's escalation report: when the stop rule ends a run, people get
 * the round log, the blocking counts and the evidence each round was judged
 * on, as markdown and JSON.
 */
import { join } from 'node:path';
import { type RunReport, roundLog } from '../core/run-report.js';
import { writeFileAtomic } from '../io/atomic-file.js';
import { mdText } from '../report/markdown.js';
import type { DecideResult } from './stages/decide.js';
import type { FixResult } from './stages/fix.js';

export function escalationJson(report: RunReport) {
  const log = roundLog(report);
  const fixOf = (round: number) => {
    const f = report.stages.find((s) => s.stage === 'fix' && s.round === round)?.result as
      | FixResult
      | undefined;
    if (!f) return null;
    return {
      commit: f.commit,
      ...(f.notLanded ? { notLanded: f.notLanded } : {}),
      ...(f.userTreeChanged ? { userTreeChanged: f.userTreeChanged } : {}),
    };
  };
  const decisions = report.stages
    .filter((s) => s.stage === 'decide')
    .sort((a, b) => a.round - b.round)
    .map((s) => {
      const d = s.result as DecideResult;
      return {
        round: s.round,
        blocking: d.blocking,
        progress: d.progress[d.progress.length - 1] ?? null,
        evidence: d.evidence,
        // What of the fix this round judges did not land (no progress can come of it).
        priorFixNotLanded: fixOf(s.round - 1)?.notLanded ?? null,
        decision: d.decision,
      };
    });
  return {
    runId: report.run.id,
    change: report.run.snapshot.change,
    status: report.run.status,
    outcome: report.run.outcome,
    stopReason: report.run.stopReason,
    blockingCounts: decisions.map((d) => d.blocking),
    rounds: log.rounds.map((r) => ({ ...r, fix: fixOf(r.round) })),
    decisions,
  };
}

export function escalationMarkdown(report: RunReport): string {
  const e = escalationJson(report);
  const lines = [
    `# revloop escalation: run ${e.runId}`,
    '',
    `The loop on change ${mdText(e.change)} stopped for **${e.stopReason}**: two consecutive rounds brought no evidence of progress`,
    '(no failing check began to pass, no blocker was fixed with evidence, no dispute was settled, the diff did not shrink).',
    'A person should look at the open blockers below.',
    '',
    '| round | blocking | progress | evidence |',
    '|---|---|---|---|',
    ...e.decisions.map((d) => {
      const ev = d.evidence;
      const parts = ev
        ? [
            ev.checksNowPassing.length ? `checks now passing: ${ev.checksNowPassing.join(', ')}` : '',
            ev.fixed.length ? `fixed: ${ev.fixed.join(', ')}` : '',
            ev.settled.length ? `settled: ${ev.settled.join(', ')}` : '',
            ev.shrank ? 'diff shrank' : '',
          ].filter(Boolean)
        : ['baseline round'];
      if (d.priorFixNotLanded)
        parts.push(`round ${d.round - 1}'s fix did not land: ${mdText(d.priorFixNotLanded)}`);
      return `| ${d.round} | ${d.blocking} | ${d.progress ? 'yes' : 'no'} | ${parts.join('; ') || 'none'} |`;
    }),
    '',
    '## Round log',
    ...e.rounds.flatMap((r) => [
      '',
      `### Round ${r.round} (${r.head.slice(0, 12)}): ${r.blocking} blocking`,
      ...(r.fix?.notLanded ? ['', `The fix of this round did not land: ${mdText(r.fix.notLanded)}.`] : []),
      ...r.findings.map(
        (f) =>
          `- ${f.blocking ? '**blocking**' : `not blocking (${f.because})`} ${f.severity} ${mdText(f.reviewer)} \`${f.file}:${f.line}\` ${mdText(f.claim)} (id ${f.id})`,
      ),
    ]),
    '',
  ];
  return lines.join('\n');
}

/** Writes `<stateDir>/reports/<runId>-escalation.{md,json}`; returns the markdown path. */
export function writeEscalation(stateDir: string, report: RunReport): string {
  const base = join(stateDir, 'reports', `${report.run.id}-escalation`);
  writeFileAtomic(`${base}.json`, `${JSON.stringify(escalationJson(report), null, 2)}\n`);
  writeFileAtomic(`${base}.md`, escalationMarkdown(report));
  return `${base}.md`;
}
