/**
 * Invariant 8's escalation report: when the stop rule ends a run, people get
 * the round log, the blocking counts and the evidence each round was judged
 * on, as markdown and JSON.
 */
import { join } from 'node:path';
import { type RunReport, roundLog, waitsForPerson } from '../../core/run-report.js';
import { stage, stageRows } from '../../core/stage-results.js';
import { writeFileAtomic } from '../../io/atomic-file.js';
import { mdText } from '../../report/markdown.js';

export function escalationJson(report: RunReport) {
  const log = roundLog(report);
  const fixOf = (round: number) => {
    const f = stage(report.stages, round, 'fix');
    if (!f) return null;
    return {
      commit: f.commit,
      ...(f.notLanded ? { notLanded: f.notLanded } : {}),
      ...(f.userTreeChanged ? { userTreeChanged: f.userTreeChanged } : {}),
    };
  };
  const decisions = stageRows(report.stages, 'decide')
    .sort((a, b) => a.round - b.round)
    .map((s) => {
      const d = s.result;
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
    ...stoppedBecause(report),
    ...waitingForPerson(report),
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
      ...(r.fix && r.fix.commit === null && !r.fix.notLanded
        ? ['', 'The fixer made no edit in this round.']
        : []),
      ...r.findings.map(
        (f) =>
          `- ${f.blocking ? '**blocking**' : `not blocking (${f.because})`} ${f.severity} ${mdText(f.reviewer)} \`${f.file}:${f.line}\` ${mdText(f.claim)} (id ${f.id})`,
      ),
    ]),
    '',
  ];
  return lines.join('\n');
}

/** What actually ended the run, in words: only the stop rule is "no evidence of progress". */
function stoppedBecause(report: RunReport): string[] {
  const { run } = report;
  const change = mdText(run.snapshot.change);
  const spent = `$${run.costUsd.toFixed(2)} of $${run.snapshot.budgets.costUsd.toFixed(2)}`;
  if (run.status !== 'completed')
    return [
      `The loop on change ${change} did not complete: **${run.status}** (${run.reason ?? 'no reason'})${run.detail ? `: ${mdText(run.detail)}` : ''}. It has no outcome.`,
      '',
    ];
  switch (run.stopReason) {
    case 'no_progress':
      return [
        `The loop on change ${change} stopped for **no_progress**: two consecutive rounds brought no evidence of progress`,
        '(no failing check began to pass, no blocker was fixed with evidence, no dispute was settled, the diff did not shrink).',
        'A person should look at the open blockers below.',
        '',
      ];
    case 'awaiting_settlement':
      return [
        `The loop on change ${change} stopped **awaiting_settlement**: the blockers left are ones only a named person can clear`,
        '(an edit of the config, the criteria or a protected path, or a blocker the fixer disputed). Nothing else is escalated.',
        '',
      ];
    case 'upheld':
      return [
        `The loop on change ${change} stopped **upheld**: a named person upheld a blocker on a protected path; the author must change that edit.`,
        '',
      ];
    case 'budget':
      return [
        `The loop on change ${change} stopped for **budget** after a complete review: its rounds or its money ran out (${spent}) with blockers left, or its spend exceeded the budget.`,
        '',
      ];
    case 'review_only':
      return [
        `The loop on change ${change} stopped **review_only**: no fixer is configured, so the run was one round of review and its blockers stand.`,
        '',
      ];
    default:
      return [
        `The loop on change ${change} ended **${run.outcome}**: no blocker remains; there is nothing to escalate.`,
        '',
      ];
  }
}

/** The ids `revloop settle` needs: last-round blockers only a person can clear, and disputes still open. */
function waitingForPerson(report: RunReport): string[] {
  const rounds = report.rounds.map((r) => r.round);
  const last = rounds.length ? Math.max(...rounds) : 0;
  const waiting = report.findings.filter(
    (f) => waitsForPerson(f) && (f.round === last || f.dispute !== null),
  );
  if (waiting.length === 0) return [];
  return [
    '## Waiting for a person',
    '',
    ...waiting.map(
      (f) =>
        `- \`${f.reported.file}:${f.reported.line}\` ${mdText(f.reported.claim)} (${mdText(f.reviewer)}): \`revloop settle ${f.id} --by NAME --decision upheld|overturned\``,
    ),
    '',
  ];
}

/** Writes `<stateDir>/reports/<runId>-escalation.{md,json}`; returns the markdown path. */
export function writeEscalation(stateDir: string, report: RunReport): string {
  const base = join(stateDir, 'reports', `${report.run.id}-escalation`);
  writeFileAtomic(`${base}.json`, `${JSON.stringify(escalationJson(report), null, 2)}\n`);
  writeFileAtomic(`${base}.md`, escalationMarkdown(report));
  return `${base}.md`;
}
