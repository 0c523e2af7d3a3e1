/**
 * Loop Lab in the browser: the simulator and the analyzer are the very
 * modules `revloop sim` and `revloop analyze` run (src/sim, src/analyze),
 * served compiled. Moving a slider re-simulates and redraws; the time from
 * the input event to the end of the redraw is shown and kept on
 * `document.body.dataset.redrawMs`.
 */
import './zod-jitless.js';
import { type AnalyzeResult, analyzeParsed, analyzeVerdict, parseRoundLogText } from '../../analyze/index.js';
import {
  OUTCOME_ROWS,
  PRESET_NAMES,
  PRESETS,
  resolveParams,
  SAMPLE_ON,
  SIDES,
  type SimParams,
  type SimResult,
  STOP_RULES,
  sideLabels,
  simulate,
  UPGRADES,
} from '../../sim/index.js';
import { COLORS, type LineChart, lineChart } from './chart.js';
import { errorBox, h, mount, replace, table } from './dom.js';
import { ledgerTable } from './ledger-table.js';

type NumKey = Exclude<keyof SimParams, 'upgrades' | 'preset' | 'stopRule' | 'sampleOn'>;
interface SliderSpec {
  key: NumKey;
  label: string;
  min: number;
  max: number;
  step: number;
}

const SLIDERS: SliderSpec[] = [
  { key: 'trials', label: 'Trials per side', min: 50, max: 2000, step: 50 },
  { key: 'seed', label: 'Seed', min: 1, max: 200, step: 1 },
  { key: 'reviewers', label: 'Reviewers', min: 1, max: 8, step: 1 },
  { key: 'defects', label: 'Real defects at the start', min: 0, max: 12, step: 1 },
  { key: 'detection', label: 'Detection probability', min: 0, max: 1, step: 0.01 },
  { key: 'falsePositive', label: 'False-positive rate', min: 0, max: 1, step: 0.01 },
  { key: 'vague', label: 'Real findings without a scenario', min: 0, max: 1, step: 0.01 },
  { key: 'vagueFalse', label: 'False positives without a scenario', min: 0, max: 1, step: 0.01 },
  { key: 'inflation', label: 'Severity inflation', min: 0, max: 1, step: 0.01 },
  { key: 'gaming', label: 'Inflated nits that game U1', min: 0, max: 1, step: 0.01 },
  { key: 'oscillation', label: 'Oscillation coupling', min: 0, max: 1, step: 0.01 },
  { key: 'fixSuccess', label: 'Fix success', min: 0, max: 1, step: 0.01 },
  { key: 'refuterAccuracy', label: 'Refuter accuracy', min: 0, max: 1, step: 0.01 },
  { key: 'simplify', label: 'Rework that shrinks the diff', min: 0, max: 1, step: 0.01 },
  { key: 'regions', label: 'Regions (hunks) of the diff', min: 1, max: 40, step: 1 },
  { key: 'stopWindow', label: 'stopWindow (rounds without progress)', min: 1, max: 6, step: 1 },
  { key: 'shrinkRatio', label: 'shrinkRatio', min: 0, max: 1, step: 0.01 },
  { key: 'cap', label: 'Baseline round cap', min: 1, max: 30, step: 1 },
  { key: 'maxRounds', label: 'Horizon (rounds simulated, every side)', min: 5, max: 60, step: 1 },
  { key: 'samples', label: 'U5: samples per review call (n)', min: 1, max: 9, step: 1 },
  { key: 'block', label: 'U5: samples that must agree to block', min: 1, max: 9, step: 1 },
  { key: 'sampleDetection', label: 'U5: per-sample detection', min: 0, max: 1, step: 0.01 },
  { key: 'recurrence', label: 'False positives that recur (what U6 remembers)', min: 0, max: 1, step: 0.01 },
];

const UPGRADE_NAMES: Record<(typeof UPGRADES)[number], string> = {
  U1: 'U1 scenario required',
  U2: 'U2 refuter',
  U3: 'U3 scope lock',
  U4: 'U4 stop rule',
  U5: 'U5 repeat sampling',
  U6: 'U6 refutation memory',
};

const app = mount();
let params: SimParams = resolveParams(null, {});
const inputs = new Map<NumKey, { input: HTMLInputElement; out: HTMLOutputElement }>();
const toggles = new Map<string, HTMLInputElement>();
const simChartHost = h('div', { class: 'chart', id: 'sim-chart' });
const timing = h('span', { class: 'small muted', id: 'redraw-time' });
const simError = h('div', { class: 'error', id: 'sim-error' });
const outcomes = h('div', { id: 'sim-outcomes' });
let chart: LineChart | null = null;
let started = 0;

const fmt = (s: SliderSpec, v: number): string => (s.step < 1 ? v.toFixed(2) : String(v));

function seriesOf(r: SimResult) {
  const labels = sideLabels(r);
  return [
    { label: labels.baseline, color: COLORS[0]!, dash: [6, 4], values: r.baseline.perRound },
    { label: labels.capped, color: COLORS[2]!, dash: [2, 3], values: r.capped.perRound },
    { label: labels.config, color: COLORS[1]!, values: r.config.perRound },
  ];
}

function onDrawn(): void {
  if (started === 0) return;
  const ms = performance.now() - started;
  started = 0;
  document.body.dataset.redrawMs = ms.toFixed(2);
  document.body.dataset.redraws = String(Number(document.body.dataset.redraws ?? '0') + 1);
  timing.textContent = `recomputed ${params.trials} + ${params.trials} trials and redrawn in ${ms.toFixed(1)} ms`;
}

/** The same rows as `revloop sim`'s text report, 95 % intervals in brackets. */
function outcomeTable(r: SimResult): HTMLElement {
  const labels = sideLabels(r);
  return table(
    {},
    ['Outcome (95 % intervals)', ...SIDES.map((side) => h('th', { class: 'num' }, labels[side]))],
    OUTCOME_ROWS.map(([label, f]) =>
      h(
        'tr',
        {},
        h('td', {}, label),
        SIDES.map((side) => h('td', { class: 'num' }, f(r[side]))),
      ),
    ),
  );
}

/** Simulates with the current params and redraws; the draw hook stamps the time. */
function run(): void {
  let r: SimResult;
  try {
    r = simulate(params);
  } catch (err) {
    started = 0;
    replace(simError, err instanceof Error ? err.message : String(err));
    return;
  }
  replace(simError);
  if (chart) chart.update(seriesOf(r));
  else
    chart = lineChart(simChartHost, {
      xLabel: 'round',
      yLabel: 'open blockers (mean)',
      series: seriesOf(r),
      onDraw: onDrawn,
    });
  replace(outcomes, outcomeTable(r));
}

function setParam(key: NumKey, value: number): void {
  params = { ...params, [key]: value, preset: null };
  if (key === 'cap' && params.maxRounds < value) params.maxRounds = value;
  if (key === 'maxRounds' && params.cap > value) params.cap = value;
  // U5's threshold never exceeds the sample count: moving one carries the other.
  if (key === 'samples' && params.block > value) params.block = value;
  if (key === 'block' && params.samples < value) params.samples = value;
  syncInputs();
}

function syncInputs(): void {
  for (const s of SLIDERS) {
    const el = inputs.get(s.key);
    if (!el) continue;
    el.input.value = String(params[s.key]);
    el.out.value = fmt(s, params[s.key]);
  }
  for (const u of UPGRADES) {
    const t = toggles.get(u);
    if (t) t.checked = params.upgrades.includes(u);
  }
}

function slider(s: SliderSpec): HTMLElement {
  const id = `p-${s.key}`;
  const input = h('input', {
    type: 'range',
    id,
    name: s.key,
    min: s.min,
    max: s.max,
    step: s.step,
    value: params[s.key],
    oninput: (e) => {
      started = performance.now();
      setParam(s.key, Number((e.target as HTMLInputElement).value));
      run();
    },
  }) as HTMLInputElement;
  const out = h('output', { for: id }, fmt(s, params[s.key])) as HTMLOutputElement;
  inputs.set(s.key, { input, out });
  return h('div', { class: 'slider' }, h('label', { for: id }, s.label), input, out);
}

function toggle(u: (typeof UPGRADES)[number]): HTMLElement {
  const input = h('input', {
    type: 'checkbox',
    name: u,
    id: `u-${u}`,
    checked: params.upgrades.includes(u),
    onchange: (e) => {
      started = performance.now();
      const on = (e.target as HTMLInputElement).checked;
      params = { ...params, upgrades: UPGRADES.filter((x) => (x === u ? on : params.upgrades.includes(x))) };
      run();
    },
  }) as HTMLInputElement;
  toggles.set(u, input);
  return h('label', {}, input, ` ${UPGRADE_NAMES[u]}`);
}

const presetSelect = h(
  'select',
  {
    id: 'preset',
    onchange: (e) => {
      started = performance.now();
      const name = (e.target as HTMLSelectElement).value;
      params = name
        ? {
            ...params,
            ...PRESETS[name as (typeof PRESET_NAMES)[number]],
            preset: name as (typeof PRESET_NAMES)[number],
          }
        : resolveParams(null, { trials: params.trials, seed: params.seed, upgrades: params.upgrades });
      syncInputs();
      run();
    },
  },
  h('option', { value: '' }, 'default'),
  PRESET_NAMES.map((p) => h('option', { value: p }, p)),
);

// U4's rule: the live loop's evidence rule, or the seed's count rule.
const stopRuleSelect = h(
  'select',
  {
    id: 'stop-rule',
    onchange: (e) => {
      started = performance.now();
      params = {
        ...params,
        stopRule: (e.target as HTMLSelectElement).value === 'count' ? 'count' : 'evidence',
      };
      run();
    },
  },
  STOP_RULES.map((r) =>
    h('option', { value: r }, r === 'evidence' ? 'evidence (the live rule)' : "count (the seed's rule)"),
  ),
);

// U5's `on`: every call sampled n times, or the extra samples only after a first sample that raised a finding.
const sampleOnSelect = h(
  'select',
  {
    id: 'sample-on',
    onchange: (e) => {
      started = performance.now();
      const v = (e.target as HTMLSelectElement).value;
      params = { ...params, sampleOn: v === 'blockers' ? 'blockers' : 'all' };
      run();
    },
  },
  SAMPLE_ON.map((o) =>
    h('option', { value: o }, o === 'all' ? 'all: n calls' : 'blockers: 1, then n - 1 on a finding'),
  ),
);

// ---- the round-log analyzer ----
const logInput = h('textarea', {
  id: 'round-log',
  spellcheck: 'false',
  placeholder: 'Paste a round log here (revloop export RUN --format rounds), or drop the file on this box.',
}) as HTMLTextAreaElement;
const analyzeOut = h('div', { id: 'analyze-out' });
let analyzeChart: LineChart | null = null;
const analyzeChartHost = h('div', { class: 'chart', id: 'analyze-chart' });

function analyzeText(text: string): void {
  if (!text.trim()) {
    replace(analyzeOut);
    return;
  }
  let r: AnalyzeResult;
  try {
    r = analyzeParsed(parseRoundLogText(text));
  } catch (err) {
    replace(analyzeOut, errorBox(err));
    return;
  }
  const series = [{ label: 'blocking', color: COLORS[2]!, values: r.rounds.map((x) => x.blocking) }];
  replace(
    analyzeOut,
    h('p', { id: 'analyze-verdict' }, analyzeVerdict(r)),
    h('div', { class: 'card' }, analyzeChartHost),
    h('h3', {}, 'Calibration ledger'),
    ledgerTable(r.reviewers, 'analyze-ledger'),
  );
  if (analyzeChart) analyzeChart.update(series);
  else
    analyzeChart = lineChart(analyzeChartHost, {
      xLabel: 'round',
      yLabel: 'blocking findings',
      height: 240,
      yWhole: true,
      series,
    });
}

const drop = h(
  'div',
  {
    class: 'drop',
    ondragover: (e) => {
      e.preventDefault();
      drop.classList.add('over');
    },
    ondragleave: () => drop.classList.remove('over'),
    ondrop: async (e) => {
      e.preventDefault();
      drop.classList.remove('over');
      const file = (e as DragEvent).dataTransfer?.files[0];
      if (!file) return;
      logInput.value = await file.text();
      analyzeText(logInput.value);
    },
  },
  logInput,
);
logInput.addEventListener('input', () => analyzeText(logInput.value));

replace(
  app,
  h('h1', {}, 'Loop Lab'),
  h(
    'p',
    { class: 'muted' },
    "The Monte-Carlo model of `revloop sim`, running in this page on the live loop's stop rule: mean open blockers per round for a baseline (no upgrades, uncapped and capped) against your configuration of upgrades, every side over the same horizon. Brackets are 95 % intervals.",
  ),
  h(
    'div',
    { class: 'grid2' },
    h(
      'div',
      { class: 'card', id: 'controls' },
      h('div', { class: 'field' }, 'Preset', presetSelect),
      h('div', { class: 'field' }, 'Stop rule', stopRuleSelect),
      h('div', { class: 'field' }, 'U5 samples on', sampleOnSelect),
      h('div', { class: 'toggles' }, UPGRADES.map(toggle)),
      SLIDERS.map(slider),
    ),
    h(
      'div',
      {},
      h('div', { class: 'card' }, simChartHost, h('div', { class: 'row' }, timing)),
      simError,
      outcomes,
    ),
  ),
  h('h2', {}, 'Analyze a round log'),
  h(
    'p',
    { class: 'muted' },
    'Convergence and reviewer calibration from a real loop, by the same code as `revloop analyze`.',
  ),
  drop,
  analyzeOut,
);
run();
