import { describe, expect, it } from 'vitest';
import { renderSvgChart, SVG_COLORS } from '../../src/report/chart-svg.js';
import { renderTerminalChart } from '../../src/report/chart-terminal.js';
import { renderSimReport, resolveParams, simChartSpec, simulate } from '../../src/sim/index.js';

const spec = {
  title: 'Blockers <per> round & more',
  series: [
    { label: 'Baseline', values: [4, 2, 2, 0] },
    { label: 'Your config', values: [3, 0.2, 0, 0] },
  ],
};

describe('terminal chart', () => {
  it('draws bars scaled to the largest value, with axis, ticks and a legend', () => {
    const text = renderTerminalChart(spec, { height: 4 });
    const lines = text.trimEnd().split('\n');
    expect(lines[0]).toBe(spec.title);
    expect(lines[1]).toBe('4 |#'); // only the baseline reaches the top
    expect(lines[4]).toBe('0 |#= #. #'); // round 2's 0.2 shows as a dot, round 4 is empty
    expect(lines[5]).toBe('  +------------');
    expect(lines[6]).toBe('   1  round');
    expect(lines[7]).toBe('   # Baseline   = Your config');
  });

  it('says when there is nothing to draw and notes rounds it leaves out', () => {
    expect(renderTerminalChart({ title: 't', series: [{ label: 'x', values: [] }] })).toBe(
      't\n  (no rounds)\n',
    );
    const long = renderTerminalChart({ title: 't', series: [{ label: 'x', values: Array(50).fill(1) }] });
    expect(long).toContain('(rounds 41-50 not shown)');
  });
});

describe('SVG chart', () => {
  it('is a standalone document with one line per series and escaped text', () => {
    const svg = renderSvgChart(spec);
    expect(
      svg.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<svg xmlns="http://www.w3.org/2000/svg"'),
    ).toBe(true);
    expect(svg.trimEnd().endsWith('</svg>')).toBe(true);
    expect(svg.match(/<polyline /g)).toHaveLength(2);
    expect(svg.match(/<circle /g)).toHaveLength(8);
    expect(svg).toContain(`stroke="${SVG_COLORS[0]}"`);
    expect(svg).toContain('Blockers &lt;per&gt; round &amp; more');
    expect(svg).not.toContain('<per>');
    expect(renderSvgChart(spec)).toBe(svg);
  });

  it('places points on the scale: the top value on the top grid line, zero on the axis', () => {
    const svg = renderSvgChart(
      { title: 't', series: [{ label: 'a', values: [5, 0] }] },
      { width: 176, height: 204 },
    );
    // plot area: x 56..156, y 40..140 with a y max of 5
    expect(svg).toContain('points="56.0,40.0 156.0,140.0"');
  });
});

describe('sim report', () => {
  it('has the per-round table for the three sides, the outcome rows with intervals and the chart', () => {
    const r = simulate(resolveParams('hostile', { trials: 30 }));
    const text = renderSimReport(r);
    expect(text).toContain('| Round | Baseline (no cap) | Baseline (cap 10) | Your config (U1+U2+U3+U4) |');
    expect(text).toContain(
      `| 1 | ${r.baseline.perRound[0]!.toFixed(2)} | ${r.capped.perRound[0]!.toFixed(2)} | ${r.config.perRound[0]!.toFixed(2)} |`,
    );
    for (const row of [
      'Terminated',
      'Converged (zero blockers)',
      'Escalated by the stop rule',
      'False escalations (would have converged)',
      'Stopped by the cap',
      'Median / p90 rounds',
      'Genuine findings shipped (mean)',
    ]) {
      expect(text).toContain(`| ${row} |`);
    }
    const [lo, hi] = r.config.ci.convergedPct;
    expect(text).toContain(`${r.config.convergedPct.toFixed(1)}% [${lo.toFixed(1)}, ${hi.toFixed(1)}]`);
    expect(text).toContain(renderTerminalChart(simChartSpec(r)));
  });

  it('writes the outcomes with their intervals under the SVG chart', () => {
    const r = simulate(resolveParams('hostile', { trials: 30 }));
    const svg = renderSvgChart(simChartSpec(r));
    const [lo, hi] = r.config.ci.convergedPct;
    expect(svg).toContain(
      `converged ${r.config.convergedPct.toFixed(1)}% [${lo.toFixed(1)}, ${hi.toFixed(1)}]`,
    );
    expect(svg).toContain(`(p90 ${r.config.p90Rounds})`);
  });
});
