/**
 * An eval report (`revloop eval --format json`): per-reviewer recall,
 * precision, F1 and false-positive rate with their bootstrap intervals, the
 * per-case table, and the `--against` comparison when the report has one.
 * A partial eval never reads as complete (invariant 18): the headline says
 * how many cases ran, an incomplete one is flagged, and every case that did
 * not run is listed as such, never scored.
 */
import type { EvalListItem, EvalMetric, EvalReportView, EvalScorecardView } from '../eval-view.js';
import { badge, cost, errorBox, getJson, h, mount, replace, table } from './dom.js';

const app = mount();

const METRICS: [EvalMetric, string][] = [
  ['recall', 'Recall'],
  ['precision', 'Precision'],
  ['f1', 'F1'],
  ['falsePositiveRate', 'FP rate (clean cases)'],
];

const pct = (v: number | null | undefined): string =>
  v === null || v === undefined ? 'n/a' : `${(v * 100).toFixed(1)}%`;
const range = (i: { low: number; high: number } | null): string =>
  i ? `[${pct(i.low)}, ${pct(i.high)}]` : '';

type Reviewer = EvalScorecardView['reviewers'][number];

/** The counts behind a metric, so a percentage is never read without its denominator. */
function counts(r: Reviewer, m: EvalMetric): string {
  const t = r.tally;
  if (m === 'recall') return `${t.matchedDefects}/${t.defects} defects`;
  if (m === 'precision') return `${t.matchedFindings}/${t.findings} findings`;
  if (m === 'falsePositiveRate') return `${t.falsePositiveCases}/${t.clean} clean cases`;
  return '';
}

function headline(s: EvalScorecardView): HTMLElement {
  const t = s.totals;
  return h(
    'p',
    { class: 'headline', 'data-complete': String(s.complete) },
    `${t.ran} of ${t.cases} cases ran `,
    s.complete
      ? badge('complete', 'ok')
      : badge(`INCOMPLETE: ${t.notRun} case(s) could not run and are not scored`, 'bad'),
    ` · mode ${s.mode} · window ±${s.window} lines · ${t.rounds} rounds · ${cost(t.costUsd)} · ${t.seconds.toFixed(1)} s`,
  );
}

function reviewerTable(s: EvalScorecardView, id: string): HTMLElement {
  return table(
    { id },
    ['Reviewer', ...METRICS.map(([, t]) => t), 'Refuted'],
    s.reviewers.map((r) =>
      h(
        'tr',
        { 'data-reviewer': r.reviewer },
        h('td', {}, r.reviewer),
        METRICS.map(([m]) =>
          h(
            'td',
            { 'data-metric': m },
            h('span', { class: 'value' }, pct(r.metrics[m])),
            ' ',
            h('span', { class: 'small muted interval' }, range(r.intervals[m])),
            h('div', { class: 'small muted' }, counts(r, m)),
          ),
        ),
        h('td', {}, r.tally.refuted),
      ),
    ),
  );
}

function caseTable(s: EvalScorecardView, id: string): HTMLElement {
  return table(
    { id },
    ['Case', 'Kind', 'Result', 'Findings', 'Matched', 'Blocking', 'Judged'],
    s.cases.map((c) => {
      const kind = c.clean ? 'clean' : `${c.defects.length} defect(s)`;
      if (!c.ran)
        return h(
          'tr',
          { 'data-case': c.id, class: 'not-run' },
          h('td', { class: 'mono' }, c.id),
          h('td', {}, kind),
          h(
            'td',
            { colspan: 5 },
            badge('not run', 'bad'),
            ' ',
            h('span', { class: 'small' }, c.error ?? c.field ?? ''),
          ),
        );
      const findings = c.findings ?? [];
      return h(
        'tr',
        { 'data-case': c.id },
        h('td', { class: 'mono' }, c.id),
        h('td', {}, kind),
        h('td', {}, c.outcome ?? '—'),
        h('td', {}, findings.length),
        h('td', {}, (c.matches ?? []).filter((m) => m !== null).length),
        h('td', {}, findings.filter((f) => f.blocking).length),
        h('td', { class: 'small' }, c.judged && c.judged.pairs > 0 ? `${c.judged.pairs} pair(s)` : '—'),
      );
    }),
  );
}

function comparison(r: EvalReportView): HTMLElement[] {
  if (!r.against) return [];
  const d = r.against.diff;
  return [
    h('h2', {}, `Against: ${r.against.other.label}`),
    headline(r.against.other),
    reviewerTable(r.against.other, 'against-reviewers'),
    h(
      'h3',
      {},
      `Difference (against − config), paired bootstrap over ${d.pairedCases} case(s) that ran on both sides`,
    ),
    table(
      { id: 'difference' },
      ['Metric', 'Δ', '95 % interval', 'p', ''],
      METRICS.map(([m, t]) => {
        const x = d.overall[m];
        return h(
          'tr',
          { 'data-metric': m },
          h('td', {}, t),
          h(
            'td',
            {},
            x.delta === null ? 'n/a' : `${x.delta >= 0 ? '+' : ''}${(x.delta * 100).toFixed(1)} points`,
          ),
          h('td', {}, range(x.interval)),
          h('td', {}, x.p === null ? '' : x.p.toFixed(3)),
          h('td', {}, x.delta === null ? '' : x.significant ? badge('significant', 'ok') : 'not significant'),
        );
      }),
    ),
  ];
}

function render(list: EvalListItem[], current: EvalListItem, r: EvalReportView): void {
  const s = r.primary;
  const picker =
    list.length > 1
      ? h(
          'p',
          { class: 'filters' },
          'Report: ',
          list.map((x) =>
            h(
              'a',
              {
                href: `/eval?id=${encodeURIComponent(x.id)}`,
                'aria-current': x.id === current.id ? 'page' : null,
                class: 'chip',
              },
              `${x.file}${x.complete ? '' : ' (incomplete)'}`,
            ),
          ),
        )
      : null;
  const notRun = s.cases.filter((c) => !c.ran);
  replace(
    app,
    h('h1', {}, `Eval: ${s.label}`),
    picker,
    h('p', { class: 'muted small' }, `Corpus ${r.corpus} · file ${current.file}`),
    headline(s),
    h('p', { class: 'small' }, `Config: ${s.applied}.`),
    h('h2', {}, 'Scores'),
    h(
      'p',
      { class: 'legend-note' },
      '95 % percentile bootstrap intervals over cases in brackets. The false-positive rate counts clean cases with a blocker.',
    ),
    reviewerTable(s, 'reviewers'),
    notRun.length > 0
      ? [
          h('h2', {}, `Not run (${notRun.length})`),
          h(
            'ul',
            { id: 'not-run' },
            notRun.map((c) =>
              h('li', { class: 'error' }, c.error ?? `case ${c.id}: ${c.field ?? 'not run'}`),
            ),
          ),
        ]
      : null,
    h('h2', {}, 'Cases'),
    caseTable(s, 'cases'),
    comparison(r),
  );
}

async function main(): Promise<void> {
  const { reports } = await getJson<{ reports: EvalListItem[] }>('/api/evals');
  if (reports.length === 0) {
    replace(
      app,
      h('h1', {}, 'Eval'),
      h(
        'div',
        { class: 'empty' },
        'No eval report was given. Write one with `revloop eval CORPUS --config FILE --json --out eval.json` and start the dashboard with `revloop ui --eval eval.json` (or a directory of them).',
      ),
    );
    return;
  }
  const want = new URLSearchParams(location.search).get('id');
  const current = reports.find((x) => x.id === want) ?? (reports[0] as EvalListItem);
  render(reports, current, await getJson<EvalReportView>(`/api/evals/${encodeURIComponent(current.id)}`));
}

main().catch((err: unknown) => replace(app, errorBox(err)));
