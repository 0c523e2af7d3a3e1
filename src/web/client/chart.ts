/**
 * Line charts with uPlot, loaded as a classic script (the page shell adds
 * /assets/uplot.js before the page module). Series are values per round or
 * per run; the x axis is their 1-based index.
 */
import type uPlot from 'uplot';

const lib = (): typeof uPlot => {
  const u = (globalThis as { uPlot?: typeof uPlot }).uPlot;
  if (!u) throw new Error('uPlot did not load');
  return u;
};

export interface LineSeries {
  label: string;
  color: string;
  dash?: number[];
  values: readonly (number | null)[];
}

export interface LineChart {
  update(series: LineSeries[]): void;
  readonly plot: uPlot;
}

export const COLORS = [
  '#8c959f',
  '#1f6feb',
  '#cf222e',
  '#1a7f37',
  '#9a6700',
  '#8250df',
  '#bf3989',
  '#0a7ea4',
];

function aligned(series: LineSeries[]): uPlot.AlignedData {
  const n = Math.max(0, ...series.map((s) => s.values.length));
  const xs = Array.from({ length: n }, (_, i) => i + 1);
  return [xs, ...series.map((s) => xs.map((_, i) => s.values[i] ?? null))];
}

/** Draws a chart into `el`; `onDraw` runs after every redraw (the Loop Lab times it). */
export function lineChart(
  el: HTMLElement,
  opts: {
    xLabel: string;
    yLabel: string;
    height?: number;
    series: LineSeries[];
    onDraw?: () => void;
    yMax?: number;
    /** Counts: whole-number ticks only. */
    yWhole?: boolean;
  },
): LineChart {
  const U = lib();
  let shape = opts.series.map((s) => s.label).join('\u0000');
  const build = (series: LineSeries[]) =>
    new U(
      {
        width: Math.max(320, el.clientWidth),
        height: opts.height ?? 300,
        scales: {
          x: { time: false, range: (_u, min, max) => [Math.min(min, 1), Math.max(max, 2)] },
          y: opts.yMax === undefined ? {} : { range: [0, opts.yMax] },
        },
        axes: [
          // Rounds and runs are whole numbers: no fractional ticks.
          {
            label: opts.xLabel,
            stroke: '#57606a',
            grid: { stroke: '#eaeef2' },
            incrs: [1, 2, 5, 10, 20, 50, 100],
          },
          {
            label: opts.yLabel,
            stroke: '#57606a',
            grid: { stroke: '#eaeef2' },
            ...(opts.yWhole ? { incrs: [1, 2, 5, 10, 20, 50, 100] } : {}),
          },
        ],
        series: [
          { label: opts.xLabel },
          ...series.map((s) => ({
            label: s.label,
            stroke: s.color,
            width: 2,
            dash: s.dash,
            points: { size: 5 },
          })),
        ],
        hooks: { draw: [() => opts.onDraw?.()] },
      },
      aligned(series),
      el,
    );
  let plot = build(opts.series);
  const resize = new ResizeObserver(() =>
    plot.setSize({ width: Math.max(320, el.clientWidth), height: opts.height ?? 300 }),
  );
  resize.observe(el);
  return {
    get plot() {
      return plot;
    },
    update(series) {
      const next = series.map((s) => s.label).join('\u0000');
      if (next === shape) {
        plot.setData(aligned(series));
        return;
      }
      // Labels changed (a toggle renamed the config series): rebuild rather than patch the legend.
      shape = next;
      plot.destroy();
      plot = build(series);
    },
  };
}
