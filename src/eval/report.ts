/**
 * Text and markdown renderings of a scorecard (JSON is the scorecard
 * itself). The header always says how many cases ran of how many: a
 * partial eval never reads as complete (invariant 18).
 */
import type { Interval, MetricName } from './bootstrap.js';
import type { Comparison, ReviewerScore, Scorecard } from './scorecard.js';

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
  return `eval ${s.label}: ${t.ran} of ${t.cases} cases ran (${state}); mode ${s.mode}, window ±${s.window} lines; ${t.rounds} rounds, $${t.costUsd.toFixed(4)}, ${t.seconds.toFixed(1)} s`;
}

function notRunLines(s: Scorecard): string[] {
  return s.cases.flatMap((c) => (c.ran ? [] : [`  not run: ${c.error}`]));
}

export function renderText(s: Scorecard, cmp?: { other: Scorecard; diff: Comparison }): string {
  const rows = s.reviewers.map((r) => {
    const t = r.tally;
    return `  ${r.reviewer.padEnd(18)} recall ${cell(r, 'recall')} (${t.matchedDefects}/${t.defects})  precision ${cell(r, 'precision')} (${t.matchedFindings}/${t.findings})  F1 ${pct(r.metrics.f1)}  FP rate ${cell(r, 'falsePositiveRate')} (${t.falsePositiveCases}/${t.clean})  refuted ${t.refuted}`;
  });
  const out = [headline(s), `  config: ${s.applied}`, ...rows, ...notRunLines(s)];
  if (cmp)
    out.push(
      '',
      headline(cmp.other),
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
  return [
    `difference (against − config) over ${d.pairedCases} cases that ran on both sides, paired bootstrap:`,
    ...(Object.keys(NAMES) as MetricName[]).map((k) => {
      const x = d.overall[k];
      if (x.delta === null) return `  ${NAMES[k]}: n/a`;
      return `  ${NAMES[k]}: ${x.delta >= 0 ? '+' : ''}${(x.delta * 100).toFixed(1)} points${ci(x.interval)}, p = ${x.p?.toFixed(3)}${x.significant ? ' (significant)' : ' (not significant)'}`;
    }),
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
      ...table(cmp.other),
      '',
      '## Difference',
      '',
      ...comparisonLines(cmp.diff).map((l) => `- ${l.trim()}`),
    );
  return `${out.join('\n')}\n`;
}
