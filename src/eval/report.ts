/**
 * Text and markdown renderings of a scorecard (JSON is the scorecard
 * itself). The header always says how many cases ran of how many: a
 * partial eval never reads as complete (invariant 18).
 */
import type { Interval, MetricName } from './bootstrap.js';
import type { Comparison, ReviewerScore, Scorecard } from './scorecard.js';
import type { SpendEstimate } from './spend.js';

const pct = (v: number | null) => (v === null ? 'n/a' : `${(v * 100).toFixed(1)}%`);
const ci = (i: Interval | null) => (i === null ? '' : ` [${pct(i.low)}, ${pct(i.high)}]`);
const cell = (s: ReviewerScore, k: MetricName) => `${pct(s.metrics[k])}${ci(s.intervals[k])}`;

const NAMES: Record<MetricName, string> = {
  recall: 'recall',
  precision: 'precision',
  f1: 'F1',
  falsePositiveRate: 'false-positive rate',
};

export function headline(s: Scorecard): string {
  const t = s.totals;
  const state = s.complete ? 'complete' : `INCOMPLETE: ${t.notRun} case(s) could not run and are not scored`;
  return `eval ${s.label}: ${t.ran} of ${t.cases} cases ran (${state}); mode ${s.mode}, window ±${s.window} lines; ${t.rounds} rounds, ${t.calls} calls, $${t.costUsd.toFixed(4)}, ${t.seconds.toFixed(1)} s`;
}

const num = (v: number, digits: number) => v.toFixed(digits);
const span = (e: SpendEstimate, digits: number) =>
  `${num(e.mean, digits)}${e.interval ? ` [${num(e.interval.low, digits)}, ${num(e.interval.high, digits)}]` : ''}`;

/** Per case: dollars and calls, each with its interval. */
export const spendLine = (s: Scorecard): string =>
  `per case: cost $${span(s.spend.costUsd, 4)}, calls ${span(s.spend.calls, 2)}`;

function notRunLines(s: Scorecard): string[] {
  return s.cases.flatMap((c) => (c.ran ? [] : [`  not run: ${c.error}`]));
}

export function renderText(s: Scorecard, cmp?: { other: Scorecard; diff: Comparison }): string {
  const rows = s.reviewers.map((r) => {
    const t = r.tally;
    return `  ${r.reviewer.padEnd(18)} recall ${cell(r, 'recall')} (${t.matchedDefects}/${t.defects})  precision ${cell(r, 'precision')} (${t.matchedFindings}/${t.findings})  F1 ${pct(r.metrics.f1)}  FP rate ${cell(r, 'falsePositiveRate')} (${t.falsePositiveCases}/${t.clean})  refuted ${t.refuted}`;
  });
  const out = [headline(s), `  config: ${s.applied}`, `  ${spendLine(s)}`, ...rows, ...notRunLines(s)];
  if (cmp)
    out.push(
      '',
      headline(cmp.other),
      `  ${spendLine(cmp.other)}`,
      ...cmp.other.reviewers.map(
        (r) =>
          `  ${r.reviewer.padEnd(18)} recall ${cell(r, 'recall')}  precision ${cell(r, 'precision')}  F1 ${pct(r.metrics.f1)}  FP rate ${cell(r, 'falsePositiveRate')}`,
      ),
      ...notRunLines(cmp.other),
      '',
      ...comparisonLines(cmp.diff),
    );
  return `${out.join('\n')}\n`;
}

function comparisonLines(d: Comparison): string[] {
  const signed = (v: number, digits: number) => `${v >= 0 ? '+' : ''}${v.toFixed(digits)}`;
  const range = (i: { low: number; high: number } | null, digits: number) =>
    i ? ` [${signed(i.low, digits)}, ${signed(i.high, digits)}]` : '';
  const ratio = (r: number | null, i: { low: number; high: number } | null) =>
    r === null
      ? ''
      : `, ${r.toFixed(2)}× the config${i ? ` [${i.low.toFixed(2)}×, ${i.high.toFixed(2)}×]` : ''}`;
  const cost = d.spend.costUsd;
  const calls = d.spend.calls;
  return [
    `difference (against − config) over ${d.pairedCases} cases that ran on both sides, paired bootstrap:`,
    ...(Object.keys(NAMES) as MetricName[]).map((k) => {
      const x = d.overall[k];
      if (x.delta === null) return `  ${NAMES[k]}: n/a`;
      return `  ${NAMES[k]}: ${x.delta >= 0 ? '+' : ''}${(x.delta * 100).toFixed(1)} points${ci(x.interval)}, p = ${x.p?.toFixed(3)}${x.significant ? ' (significant)' : ' (not significant)'}`;
    }),
    `  cost per case: ${signed(cost.delta, 4)} $${range(cost.interval, 4)}${ratio(cost.ratio, cost.ratioInterval)}`,
    `  calls per case: ${signed(calls.delta, 2)}${range(calls.interval, 2)}${ratio(calls.ratio, calls.ratioInterval)}`,
  ];
}

export function renderMarkdown(s: Scorecard, cmp?: { other: Scorecard; diff: Comparison }): string {
  const table = (sc: Scorecard) => [
    '| reviewer | recall | precision | F1 | false-positive rate | refuted |',
    '|---|---|---|---|---|---|',
    ...sc.reviewers.map(
      (r) =>
        `| ${r.reviewer} | ${cell(r, 'recall')} (${r.tally.matchedDefects}/${r.tally.defects}) | ${cell(r, 'precision')} (${r.tally.matchedFindings}/${r.tally.findings}) | ${pct(r.metrics.f1)} | ${cell(r, 'falsePositiveRate')} (${r.tally.falsePositiveCases}/${r.tally.clean}) | ${r.tally.refuted} |`,
    ),
  ];
  const cases = (sc: Scorecard) => [
    '| case | kind | result | findings | matched |',
    '|---|---|---|---|---|',
    ...sc.cases.map((c) =>
      c.ran
        ? `| ${c.id} | ${c.clean ? 'clean' : `${c.defects.length} defect(s)`} | ${c.outcome ?? ''} | ${c.findings.length} | ${c.matches.filter((m) => m !== null).length} |`
        : `| ${c.id} | ${c.clean ? 'clean' : `${c.defects.length} defect(s)`} | **not run** (${c.field}) | | |`,
    ),
  ];
  const out = [
    `# revloop eval: ${s.label}`,
    '',
    `**${headline(s)}**`,
    '',
    `Config: ${s.applied}.`,
    '',
    `${spendLine(s)[0]?.toUpperCase()}${spendLine(s).slice(1)}.`,
    '',
    ...table(s),
    '',
    ...cases(s),
  ];
  if (cmp)
    out.push(
      '',
      `## against: ${cmp.other.label}`,
      '',
      `**${headline(cmp.other)}**`,
      '',
      `${spendLine(cmp.other)[0]?.toUpperCase()}${spendLine(cmp.other).slice(1)}.`,
      '',
      ...table(cmp.other),
      '',
      '## Difference',
      '',
      ...comparisonLines(cmp.diff).map((l) => `- ${l.trim()}`),
    );
  return `${out.join('\n')}\n`;
}
