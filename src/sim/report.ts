/**
 * The human-readable `revloop sim` report: parameters, the per-round table,
 * the per-side outcomes with their 95 % intervals and a terminal chart. Pure,
 * shared with the dashboard.
 */
import { type ChartSpec, renderTerminalChart } from '../report/chart-terminal.js';
import type { Interval, SideSummary, SimResult } from './simulate.js';

/** "U1+U2" or "no upgrades". */
export const configName = (upgrades: readonly string[]): string =>
  upgrades.length === 0 ? 'no upgrades' : upgrades.join('+');

/** The three sides in the order every table prints them. */
export const SIDES = ['baseline', 'capped', 'config'] as const;
export type SideName = (typeof SIDES)[number];

/** Column headings of the three sides. */
export function sideLabels(r: SimResult): Record<SideName, string> {
  return {
    baseline: 'Baseline (no cap)',
    capped: `Baseline (cap ${r.params.cap})`,
    config: `Your config (${configName(r.params.upgrades)})`,
  };
}

/** The chart both the terminal and `--svg` draw for a simulation. */
export function simChartSpec(r: SimResult): ChartSpec {
  const labels = sideLabels(r);
  return {
    title: `Mean open blockers per round (${r.params.trials} trials, seed ${r.params.seed})`,
    series: SIDES.map((s) => ({ label: labels[s], values: r[s].perRound })),
    notes: summaryNotes(r),
  };
}

const pct = (x: number) => `${x.toFixed(1)}%`;
const num = (x: number) => x.toFixed(2);
const pctCi = (x: number, iv: Interval) => `${pct(x)} [${iv[0].toFixed(1)}, ${iv[1].toFixed(1)}]`;
const numCi = (x: number, iv: Interval) => `${num(x)} [${num(iv[0])}, ${num(iv[1])}]`;

/** Outcome rows: label and how one side shows it. Brackets are 95 % intervals. */
export const OUTCOME_ROWS: readonly [string, (s: SideSummary) => string][] = [
  ['Terminated', (s) => pctCi(s.terminatedPct, s.ci.terminatedPct)],
  ['Converged (zero blockers)', (s) => pctCi(s.convergedPct, s.ci.convergedPct)],
  ['Escalated by the stop rule', (s) => pctCi(s.escalatedPct, s.ci.escalatedPct)],
  ['False escalations (would have converged)', (s) => pctCi(s.falseEscalationPct, s.ci.falseEscalationPct)],
  ['Stopped by the cap', (s) => pct(s.cappedPct)],
  ['Mean rounds', (s) => numCi(s.meanRounds, s.ci.meanRounds)],
  ['Median / p90 rounds', (s) => `${s.medianRounds} / ${s.p90Rounds}`],
  ['Genuine findings shipped (mean)', (s) => numCi(s.shipped, s.ci.shipped)],
  ['of which defects / conflicts', (s) => `${num(s.shippedDefects)} / ${num(s.shippedConflicts)}`],
  ['Rework rounds spent on false blockers (mean)', (s) => numCi(s.wastedRounds, s.ci.wastedRounds)],
  ['False blockers reworked (mean)', (s) => num(s.falseReworks)],
  ['Reviewer / refuter calls (mean)', (s) => `${num(s.reviewCalls)} / ${num(s.refuterCalls)}`],
  ['Refutations from memory (U6)', (s) => `${num(s.memoryHits)} (${pct(s.memoryHitPct)})`],
];

/** A few lines under the SVG chart: the headline outcomes with their intervals. */
function summaryNotes(r: SimResult): string[] {
  const labels = sideLabels(r);
  return SIDES.map(
    (s) =>
      `${labels[s]}: converged ${pctCi(r[s].convergedPct, r[s].ci.convergedPct)}, ` +
      `median ${r[s].medianRounds} (p90 ${r[s].p90Rounds}) rounds, shipped ${numCi(r[s].shipped, r[s].ci.shipped)}`,
  );
}

/** Markdown tables plus the terminal chart, ending with a newline. */
export function renderSimReport(r: SimResult): string {
  const p = r.params;
  const labels = sideLabels(r);
  const head = `| Round | ${SIDES.map((s) => labels[s]).join(' | ')} |`;
  const lines = [
    `# Loop Lab: ${p.preset ?? 'default'} environment, ${p.trials} trials, seed ${p.seed}`,
    '',
    `Your config: ${configName(p.upgrades)}, stop rule ${p.stopRule} (window ${p.stopWindow}, shrink ratio ${p.shrinkRatio}). ` +
      `Every side runs to the same horizon (${p.maxRounds} rounds); the cap (${p.cap}) is its own column.`,
    `Reviewers ${p.reviewers}, defects ${p.defects}, regions ${p.regions}, detection ${p.detection}, ` +
      `false positives ${p.falsePositive} (vague ${p.vagueFalse}), vague real findings ${p.vague}, ` +
      `inflation ${p.inflation} (gaming U1 ${p.gaming}), oscillation ${p.oscillation}, fix success ${p.fixSuccess}, ` +
      `refuter accuracy ${p.refuterAccuracy}, simplify ${p.simplify}, recurrence ${p.recurrence}.`,
    ...(p.upgrades.includes('U5')
      ? [
          `U5: ${p.samples} samples (on ${p.sampleOn}), blocking at ${p.block} of ${p.samples}, per-sample detection ${p.sampleDetection}, per-sample false positives ${p.falsePositive}.`,
        ]
      : []),
    '',
    head,
    '|---|---|---|---|',
  ];
  r.baseline.perRound.forEach((_, i) => {
    lines.push(`| ${i + 1} | ${SIDES.map((s) => (r[s].perRound[i] ?? 0).toFixed(2)).join(' | ')} |`);
  });
  lines.push(
    '',
    `| Outcome (95 % intervals) | ${SIDES.map((s) => labels[s]).join(' | ')} |`,
    '|---|---|---|---|',
  );
  for (const [label, show] of OUTCOME_ROWS)
    lines.push(`| ${label} | ${SIDES.map((s) => show(r[s])).join(' | ')} |`);
  lines.push('', renderTerminalChart({ ...simChartSpec(r), notes: undefined }));
  return lines.join('\n');
}
