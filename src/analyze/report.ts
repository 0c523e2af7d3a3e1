/**
 * The human-readable `revloop analyze` report: rounds, verdict, calibration
 * ledger and a terminal chart. Pure, shared with the dashboard.
 */
import { type ChartSpec, renderTerminalChart } from '../report/chart-terminal.js';
import type { AnalyzeResult } from './analyze.js';

/** The chart both the terminal and `--svg` draw for a round log. */
export function analyzeChartSpec(r: AnalyzeResult): ChartSpec {
  return {
    title: 'Blocking findings per round (round log)',
    series: [{ label: 'blocking', values: r.rounds.map((x) => x.blocking) }],
  };
}

/**
 * A name from a log as one table cell: control characters (a newline would
 * end the row) written as escapes, pipes escaped, so no name can break the table.
 */
export function cellText(s: string): string {
  return s
    .replace(/\\/g, '\\\\')
    .replace(/\|/g, '\\|')
    .replace(/[\u0000-\u001f\u007f\u2028\u2029]/g, (c) =>
      c === '\n'
        ? '\\n'
        : c === '\r'
          ? '\\r'
          : c === '\t'
            ? '\\t'
            : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
    );
}

function ruleWords(r: AnalyzeResult): string {
  return r.stopRule === 'evidence'
    ? `the live rule on the recorded evidence (${r.stopWindow} rounds without progress)`
    : `the seed's count rule (${r.stopWindow} consecutive rounds without a strict decrease)`;
}

/** The one-paragraph verdict (the dashboard prints the same). */
export function analyzeVerdict(r: AnalyzeResult): string {
  if (r.rounds.length === 0) return 'The log has no rounds: nothing converged.';
  const parts = [
    r.converged
      ? `Converged: the last round (${r.rounds.length}) has no blocker.`
      : r.unjudged !== null
        ? `Not converged: ${r.unjudged}.`
        : `Not converged: round ${r.rounds.length} still has ${r.rounds[r.rounds.length - 1]!.blocking} blocker(s).`,
  ];
  if (r.roundsToConverge !== null && r.roundsToConverge !== r.rounds.length) {
    parts.push(`First clear round: ${r.roundsToConverge}.`);
  }
  parts.push(
    r.divergentRounds.length === 0
      ? 'No divergent round.'
      : `Divergent rounds: ${r.divergentRounds.join(', ')}.`,
    r.stopRuleFiredAt === null
      ? `The stop rule never fires by ${ruleWords(r)}.`
      : `The stop rule fires at round ${r.stopRuleFiredAt} by ${ruleWords(r)}.`,
  );
  if (r.stopRule === 'evidence' && r.countRuleFiredAt !== r.stopRuleFiredAt) {
    parts.push(
      r.countRuleFiredAt === null
        ? 'The count rule would never fire.'
        : `The count rule would fire at round ${r.countRuleFiredAt}.`,
    );
  }
  if (r.roundsOnWrongBlockers > 0) {
    parts.push(`${r.roundsOnWrongBlockers} round(s) spent work on a blocker shown wrong later.`);
  }
  if (r.reproducesRecord !== null) {
    parts.push(
      r.reproducesRecord
        ? `This reproduces the recorded stop (${r.recordedStopReason}).`
        : `This does NOT reproduce the recorded stop (${r.recordedStopReason}).`,
    );
  }
  return parts.join(' ');
}

/** Markdown tables, a one-paragraph verdict and the terminal chart, ending with a newline. */
export function renderAnalyzeReport(r: AnalyzeResult): string {
  const divergent = new Set(r.divergentRounds);
  const lines = [
    '# Round log',
    '',
    '| Round | Blocking | Minor | Refuted | Overturned later | Demoted | Progress | |',
    '|---|---|---|---|---|---|---|---|',
  ];
  for (const x of r.rounds) {
    const notes = [
      divergent.has(x.round) ? 'divergent' : '',
      x.round === r.stopRuleFiredAt ? 'stop rule' : '',
    ];
    lines.push(
      `| ${x.round} | ${x.blocking} | ${x.minor} | ${x.refuted} | ${x.overturnedLater} | ${x.demoted} | ${x.progress ? 'yes' : 'no'} | ${notes.filter(Boolean).join(', ')} |`,
    );
  }
  lines.push(
    '',
    analyzeVerdict(r),
    '',
    '| Reviewer | Blockers raised | Demoted (procedural) | Refuted | Overturned later | Overturn rate | Read |',
    '|---|---|---|---|---|---|---|',
  );
  for (const c of r.reviewers) {
    lines.push(
      `| ${cellText(c.reviewer)} | ${c.blockersRaised} | ${c.demoted} | ${c.refuted} | ${c.overturnedLater} | ${(c.overturnRate * 100).toFixed(1)}% | ${c.read} |`,
    );
  }
  if (r.reviewers.length === 0) lines.push('| (none) | 0 | 0 | 0 | 0 | 0.0% | no findings |');
  // Only logs of sampled runs carry counts: other reports read exactly as before.
  const sampled = r.reviewers.filter((c) => c.reproduction);
  if (sampled.length > 0) {
    lines.push(
      '',
      '| Reviewer | Findings sampled | Seen by more than one sample | Reproduction rate |',
      '|---|---|---|---|',
    );
    for (const c of sampled) {
      const x = c.reproduction!;
      lines.push(
        `| ${cellText(c.reviewer)} | ${x.sampled} | ${x.reproduced} | ${(x.rate * 100).toFixed(1)}% |`,
      );
    }
  }
  lines.push('', renderTerminalChart(analyzeChartSpec(r)));
  return lines.join('\n');
}
