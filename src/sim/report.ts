/**
 * The human-readable `revloop sim` report: parameters, the per-round table,
 * the per-side outcomes and a terminal chart. Pure, shared with the dashboard.
 */
import { type ChartSpec, renderTerminalChart } from '../report/chart-terminal.js';
import type { SideSummary, SimResult } from './simulate.js';

/** "U1+U2" or "no upgrades". */
export const configName = (upgrades: readonly string[]): string =>
  upgrades.length === 0 ? 'no upgrades' : upgrades.join('+');

/** The chart both the terminal and `--svg` draw for a simulation. */
export function simChartSpec(r: SimResult): ChartSpec {
  return {
    title: `Mean open blockers per round (${r.params.trials} trials, seed ${r.params.seed})`,
    series: [
      { label: `Baseline (cap ${r.params.cap})`, values: r.baseline.perRound },
      { label: `Your config (${configName(r.params.upgrades)})`, values: r.config.perRound },
    ],
  };
}

const pct = (x: number) => `${x.toFixed(1)}%`;
const num = (x: number) => x.toFixed(2);

const OUTCOME_ROWS: [string, (s: SideSummary) => string][] = [
  ['Terminated', (s) => pct(s.terminatedPct)],
  ['Converged (zero blockers)', (s) => pct(s.convergedPct)],
  ['Escalated by the stop rule', (s) => pct(s.escalatedPct)],
  ['Stopped by the cap', (s) => pct(s.cappedPct)],
  ['Mean rounds', (s) => num(s.meanRounds)],
  ['Median rounds', (s) => num(s.medianRounds)],
  ['Real defects escaped (mean)', (s) => num(s.escapedDefects)],
  ['Rework rounds on false findings (mean)', (s) => num(s.wastedRounds)],
];

/** Markdown tables plus the terminal chart, ending with a newline. */
export function renderSimReport(r: SimResult): string {
  const p = r.params;
  const lines = [
    `# Loop Lab: ${p.preset ?? 'default'} environment, ${p.trials} trials, seed ${p.seed}`,
    '',
    `Your config: ${configName(p.upgrades)}. Baseline: no upgrades, round cap ${p.cap}. Horizon: ${p.maxRounds} rounds.`,
    `Reviewers ${p.reviewers}, defects ${p.defects}, detection ${p.detection}, false positives ${p.falsePositive}, ` +
      `vague ${p.vague}, inflation ${p.inflation}, oscillation ${p.oscillation}, fix success ${p.fixSuccess}, ` +
      `refuter accuracy ${p.refuterAccuracy}.`,
    '',
    '| Round | Baseline | Your config |',
    '|---|---|---|',
  ];
  r.baseline.perRound.forEach((b, i) => {
    lines.push(`| ${i + 1} | ${b.toFixed(2)} | ${(r.config.perRound[i] ?? 0).toFixed(2)} |`);
  });
  lines.push('', '| Outcome | Baseline | Your config |', '|---|---|---|');
  for (const [label, show] of OUTCOME_ROWS)
    lines.push(`| ${label} | ${show(r.baseline)} | ${show(r.config)} |`);
  lines.push('', renderTerminalChart(simChartSpec(r)));
  return lines.join('\n');
}
