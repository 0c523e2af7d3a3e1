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

function verdict(r: AnalyzeResult): string {
  if (r.rounds.length === 0) return 'The log has no rounds: nothing converged.';
  const parts = [
    r.converged
      ? `Converged: the last round (${r.rounds.length}) has no blocker.`
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
      ? 'The stop rule never fired.'
      : `The stop rule fires at round ${r.stopRuleFiredAt} (two consecutive rounds without a strict decrease).`,
  );
  return parts.join(' ');
}

/** Markdown tables, a one-paragraph verdict and the terminal chart, ending with a newline. */
export function renderAnalyzeReport(r: AnalyzeResult): string {
  const divergent = new Set(r.divergentRounds);
  const lines = ['# Round log', '', '| Round | Blocking | Minor | Overturned | |', '|---|---|---|---|---|'];
  for (const x of r.rounds) {
    const note =
      x.round === r.stopRuleFiredAt ? 'divergent, stop rule' : divergent.has(x.round) ? 'divergent' : '';
    lines.push(`| ${x.round} | ${x.blocking} | ${x.minor} | ${x.overturned} | ${note} |`);
  }
  lines.push(
    '',
    verdict(r),
    '',
    '| Reviewer | Blockers raised | Overturned | Overturn rate | Read |',
    '|---|---|---|---|---|',
  );
  for (const c of r.reviewers) {
    lines.push(
      `| ${c.reviewer.replace(/\|/g, '\\|')} | ${c.blockersRaised} | ${c.overturned} | ${(c.overturnRate * 100).toFixed(1)}% | ${c.read} |`,
    );
  }
  if (r.reviewers.length === 0) lines.push('| (none) | 0 | 0 | 0.0% | no findings |');
  lines.push('', renderTerminalChart(analyzeChartSpec(r)));
  return lines.join('\n');
}
