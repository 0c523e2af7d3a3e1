/**
 * The service page: the webhook deliveries `revloop serve` recorded, newest
 * first, each with the run it admitted; filtered by state and pull request.
 * Every field of a delivery came from a forge's payload, so each is a text node.
 */
import type { ServiceResponse } from '../view-types.js';
import { errorBox, getJson, h, mount, replace } from './dom.js';
import { deliveriesTable } from './service-parts.js';

const app = mount();
const FILTERS = ['state', 'pr'] as const;
type Filter = (typeof FILTERS)[number];

const params = new URLSearchParams(location.search);
const state: Record<Filter, string> = { state: params.get('state') ?? '', pr: params.get('pr') ?? '' };

const summary = h('p', { class: 'muted', id: 'summary' });
const tableHost = h('div');
const stateSelect = h('select', {
  name: 'state',
  onchange: (e) => onFilter('state', (e.target as HTMLSelectElement).value),
}) as HTMLSelectElement;

function query(): string {
  const q = new URLSearchParams();
  for (const f of FILTERS) if (state[f]) q.set(f, state[f]);
  return q.toString();
}

function onFilter(f: Filter, value: string): void {
  state[f] = value;
  const q = query();
  history.replaceState(null, '', q ? `/service?${q}` : '/service');
  void refresh();
}

function fillStates(values: string[]): void {
  // The chosen state stays listed even when no recent delivery has it.
  const want = ['', ...new Set([...values, ...(state.state ? [state.state] : [])])];
  if (Array.from(stateSelect.options, (o) => o.value).join('|') === want.join('|')) return;
  replace(stateSelect, ...want.map((v) => h('option', { value: v }, v === '' ? 'any' : v)));
  stateSelect.value = state.state;
}

function render(data: ServiceResponse): boolean {
  if (!data.inUse) {
    replace(app, h('h1', {}, 'Service'), h('div', { class: 'empty', id: 'service-off' }, data.reason));
    return false;
  }
  fillStates(data.states);
  const pending = data.deliveries.filter((d) => d.state === 'pending').length;
  replace(
    summary,
    `${data.deliveries.length} deliver${data.deliveries.length === 1 ? 'y' : 'ies'}`,
    pending ? ` · ${pending} pending, refreshing every 2 s` : '',
  );
  replace(
    tableHost,
    data.deliveries.length === 0
      ? h(
          'div',
          { class: 'empty' },
          state.state || state.pr
            ? 'No delivery matches.'
            : 'No delivery yet: `revloop serve` records each webhook the forge sends.',
        )
      : deliveriesTable('deliveries', data.deliveries, data.now),
  );
  return pending > 0;
}

let timer: number | undefined;
let asked = 0;
async function refresh(): Promise<void> {
  clearTimeout(timer);
  // Typing in the filter asks again per key: only the newest answer is shown.
  const mine = ++asked;
  let pending = false;
  try {
    const data = await getJson<ServiceResponse>(`/api/service?${query()}`);
    if (mine !== asked) return;
    pending = render(data);
    if (!data.inUse) return;
  } catch (err) {
    if (mine !== asked) return;
    replace(summary);
    replace(tableHost, errorBox(err));
  }
  // Pending deliveries are admitted within seconds; otherwise only new ones appear.
  timer = window.setTimeout(() => void refresh(), pending ? 2000 : 10000);
}

const pr = h('input', {
  type: 'search',
  name: 'pr',
  placeholder: '7 or owner/name#7',
  value: state.pr,
  oninput: (e) => onFilter('pr', (e.target as HTMLInputElement).value),
});
replace(
  app,
  h('h1', {}, 'Service'),
  summary,
  h('div', { class: 'filters' }, h('label', {}, 'State', stateSelect), h('label', {}, 'Pull request', pr)),
  tableHost,
);
fillStates([]);
void refresh();
