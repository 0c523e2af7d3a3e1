/** The runs list: filters, one row per run, refreshed every 2 s while a run is active. */
import type { RunSummary, RunsResponse } from '../view-types.js';
import { age, cost, errorBox, getJson, h, mount, outcomeBadge, replace, short, statusBadge } from './dom.js';

const app = mount();
const FILTERS = ['change', 'status', 'outcome', 'stop'] as const;
type Filter = (typeof FILTERS)[number];

const params = new URLSearchParams(location.search);
const state: Record<Filter, string> = {
  change: params.get('change') ?? '',
  status: params.get('status') ?? '',
  outcome: params.get('outcome') ?? '',
  stop: params.get('stop') ?? '',
};

const summary = h('p', { class: 'muted', id: 'summary' });
const tableHost = h('div', { class: 'table-wrap' });
const selects: Partial<Record<Filter, HTMLSelectElement>> = {};

function query(): string {
  const q = new URLSearchParams();
  for (const f of FILTERS) if (state[f]) q.set(f, state[f]);
  return q.toString();
}

function onFilter(f: Filter, value: string): void {
  state[f] = value;
  const q = query();
  history.replaceState(null, '', q ? `/?${q}` : '/');
  void refresh();
}

function select(f: Filter, label: string): HTMLElement {
  const el = h('select', {
    name: f,
    onchange: (e) => onFilter(f, (e.target as HTMLSelectElement).value),
  }) as HTMLSelectElement;
  selects[f] = el;
  return h('label', {}, label, el);
}

function fillSelect(f: Filter, values: string[]): void {
  const el = selects[f];
  if (!el) return;
  const want = ['', ...values];
  if (Array.from(el.options, (o) => o.value).join('|') === want.join('|')) return;
  replace(el, ...want.map((v) => h('option', { value: v }, v === '' ? 'any' : v)));
  el.value = state[f];
}

function row(r: RunSummary, now: number): HTMLElement {
  const href = `/runs/${encodeURIComponent(r.id)}`;
  const tr = h(
    'tr',
    { class: 'link', 'data-run': r.id, onclick: () => location.assign(href) },
    h('td', {}, h('a', { href, class: 'mono' }, r.id.slice(0, 14))),
    h('td', {}, r.change),
    h('td', {}, statusBadge(r.status), r.reason ? h('div', { class: 'small muted' }, r.reason) : null),
    h('td', {}, outcomeBadge(r.outcome)),
    h('td', {}, r.stopReason ?? '—'),
    h('td', { class: 'num' }, r.rounds),
    h('td', { class: 'num' }, cost(r.costUsd)),
    h('td', { class: 'mono small' }, `${short(r.base)}..${short(r.head)}`),
    h('td', { class: 'num', title: new Date(r.createdAt).toISOString() }, `${age(now - r.createdAt)} ago`),
  );
  return tr;
}

function render(data: RunsResponse): void {
  fillSelect('status', data.facets.statuses);
  fillSelect('outcome', data.facets.outcomes);
  fillSelect('stop', data.facets.stopReasons);
  const active = data.runs.filter((r) => r.active).length;
  replace(
    summary,
    `${data.runs.length} run${data.runs.length === 1 ? '' : 's'}`,
    active ? ` · ${active} active, refreshing every 2 s` : '',
  );
  if (data.runs.length === 0) {
    replace(
      tableHost,
      h('div', { class: 'empty' }, 'No runs match. Run `revloop review` or `revloop demo` to make one.'),
    );
    return;
  }
  replace(
    tableHost,
    h(
      'table',
      { id: 'runs' },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ['Run', 'Change', 'Status', 'Outcome', 'Stop reason'].map((t) => h('th', {}, t)),
          ['Rounds', 'Cost'].map((t) => h('th', { class: 'num' }, t)),
          h('th', {}, 'Revision'),
          h('th', { class: 'num' }, 'Age'),
        ),
      ),
      h(
        'tbody',
        {},
        data.runs.map((r) => row(r, data.now)),
      ),
    ),
  );
}

let timer: number | undefined;
async function refresh(): Promise<void> {
  clearTimeout(timer);
  let active = false;
  try {
    const data = await getJson<RunsResponse>(`/api/runs?${query()}`);
    render(data);
    active = data.runs.some((r) => r.active);
  } catch (err) {
    replace(tableHost, errorBox(err));
  }
  // Active runs change every few seconds; otherwise only new runs appear, so look less often.
  timer = window.setTimeout(() => void refresh(), active ? 2000 : 10000);
}

const change = h('input', {
  type: 'search',
  name: 'change',
  placeholder: 'change or run id',
  value: state.change,
  oninput: (e) => onFilter('change', (e.target as HTMLInputElement).value),
});
replace(
  app,
  h('h1', {}, 'Runs'),
  summary,
  h(
    'div',
    { class: 'filters' },
    h('label', {}, 'Change', change),
    select('status', 'Status'),
    select('outcome', 'Outcome'),
    select('stop', 'Stop reason'),
  ),
  tableHost,
);
void refresh();
