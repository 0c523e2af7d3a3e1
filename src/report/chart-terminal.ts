/**
 * A bar chart of blockers per round for a terminal, in plain ASCII so it
 * survives CI logs and copy-paste. Pure (no Node imports): the dashboard
 * renders the same text.
 */

/** One line of the chart: a value per round, round 1 first. */
export interface ChartSeries {
  label: string;
  values: readonly number[];
}

export interface ChartSpec {
  title: string;
  series: readonly ChartSeries[];
  /** Label of the horizontal axis; "round" when omitted. */
  xLabel?: string;
  /** Lines printed under an SVG chart (Loop Lab's outcomes and intervals); the terminal chart leaves them out. */
  notes?: readonly string[] | undefined;
}

export interface TerminalChartOptions {
  /** Rows of the plot area. */
  height?: number;
  /** Rounds shown at most; later rounds are summarised in a note. */
  maxRounds?: number;
}

/** Bar glyph of series k: the first series is solid, the second hatched, then others. */
export const TERMINAL_GLYPHS = ['#', '=', '%', '@', '+'] as const;

const fmt = (x: number): string => (Number.isInteger(x) ? String(x) : x.toFixed(1));

/** Renders `spec` as lines of text ending with a newline; an empty chart says so. */
export function renderTerminalChart(spec: ChartSpec, opts: TerminalChartOptions = {}): string {
  const height = Math.max(2, opts.height ?? 10);
  const rounds = Math.max(0, ...spec.series.map((s) => s.values.length));
  const shown = Math.min(rounds, opts.maxRounds ?? 40);
  const lines = [spec.title];
  if (shown === 0) return `${lines[0]}\n  (no rounds)\n`;
  const top = Math.max(1, ...spec.series.flatMap((s) => s.values.slice(0, shown)));
  const labelWidth = Math.max(fmt(top).length, 1);
  const group = spec.series.length + 1;

  for (let row = height; row >= 1; row--) {
    const axis = row === height ? fmt(top) : row === 1 ? '0' : '';
    let line = `${axis.padStart(labelWidth)} |`;
    for (let r = 0; r < shown; r++) {
      for (let k = 0; k < spec.series.length; k++) {
        const v = spec.series[k]!.values[r] ?? 0;
        const bar = (v / top) * height;
        // A small non-zero value still shows as a dot, so "almost done" differs from "done".
        const cell = bar >= row - 0.5 && bar > 0 ? TERMINAL_GLYPHS[k % TERMINAL_GLYPHS.length]! : '';
        line += cell || (row === 1 && v > 0 ? '.' : ' ');
      }
      line += ' ';
    }
    lines.push(line.trimEnd());
  }
  let axis = `${' '.repeat(labelWidth)} +`;
  let ticks = `${' '.repeat(labelWidth)}  `;
  for (let r = 1; r <= shown; r++) {
    axis += '-'.repeat(group);
    const tick = r === 1 || r % 5 === 0 ? String(r) : '';
    ticks += tick.padEnd(group);
  }
  lines.push(axis, `${ticks.trimEnd()}  ${spec.xLabel ?? 'round'}`);
  const legend = spec.series
    .map((s, k) => `${TERMINAL_GLYPHS[k % TERMINAL_GLYPHS.length]} ${s.label}`)
    .join('   ');
  lines.push(`${' '.repeat(labelWidth)}  ${legend}`);
  if (rounds > shown) lines.push(`${' '.repeat(labelWidth)}  (rounds ${shown + 1}-${rounds} not shown)`);
  return `${lines.join('\n')}\n`;
}
