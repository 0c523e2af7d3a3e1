/**
 * Calibration across every run: the ledger `analyze` computes from the runs'
 * round logs, and each reviewer's cumulative overturn rate run after run.
 */
import type { CalibrationView } from '../view-types.js';
import { COLORS, lineChart } from './chart.js';
import { errorBox, getJson, h, mount, replace, short, table, when } from './dom.js';
import { ledgerTable } from './ledger-table.js';

const app = mount();

/** Each reviewer's overturned / raised over runs 1..k, for every k (null before it raised a blocker). */
function cumulative(v: CalibrationView): { reviewer: string; values: (number | null)[] }[] {
  const names = v.overall.map((r) => r.reviewer);
  return names.map((reviewer) => {
    let raised = 0;
    let overturned = 0;
    return {
      reviewer,
      values: v.runs.map((run) => {
        const r = run.reviewers.find((x) => x.reviewer === reviewer);
        raised += r?.blockersRaised ?? 0;
        overturned += r?.overturned ?? 0;
        return raised === 0 ? null : Number(((100 * overturned) / raised).toFixed(1));
      }),
    };
  });
}

async function main(): Promise<void> {
  const v = await getJson<CalibrationView>('/api/calibration');
  const chartHost = h('div', { class: 'chart', id: 'calibration-chart' });
  replace(
    app,
    h('h1', {}, 'Calibration'),
    h(
      'p',
      { class: 'muted' },
      `Every run’s round log (${v.runs.length} run${v.runs.length === 1 ? '' : 's'}) read by the same analyzer as \`revloop analyze\`. A blocker is overturned when gating demoted it, the refuter refuted it or a person overturned it.`,
    ),
    h('h2', {}, 'Ledger across all runs'),
    ledgerTable(v.overall, 'ledger'),
    h('h2', {}, 'Overturn rate over time'),
    h(
      'p',
      { class: 'legend-note' },
      'Cumulative overturn rate (%) of each reviewer’s blockers, by run in the order they were admitted.',
    ),
    h('div', { class: 'card' }, chartHost),
    h('h2', {}, 'By run'),
    table(
      {},
      ['#', 'Run', 'Change', 'Admitted', 'Blockers raised / overturned'],
      v.runs.map((run, i) =>
        h(
          'tr',
          {},
          h('td', {}, i + 1),
          h('td', {}, h('a', { href: `/runs/${encodeURIComponent(run.id)}`, class: 'mono' }, short(run.id))),
          h('td', {}, run.change),
          h('td', {}, when(run.createdAt)),
          h(
            'td',
            { class: 'small' },
            run.reviewers
              .filter((r) => r.blockersRaised > 0)
              .map((r) => `${r.reviewer} ${r.blockersRaised}/${r.overturned}`)
              .join(' · ') || '—',
          ),
        ),
      ),
    ),
  );
  if (v.runs.length > 0) {
    lineChart(chartHost, {
      xLabel: 'run',
      yLabel: 'overturned %',
      height: 260,
      yMax: 100,
      series: cumulative(v).map((s, i) => ({
        label: s.reviewer,
        color: COLORS[(i + 1) % COLORS.length]!,
        values: s.values,
      })),
    });
  } else replace(chartHost, h('div', { class: 'empty' }, 'No runs yet.'));
}

main().catch((err: unknown) => replace(app, errorBox(err)));
