/**
 * The blockers-per-round chart as a standalone SVG document: one line per
 * series, axes, ticks and a legend. Pure (no Node imports) and deterministic
 * (fixed decimals), so the same data gives the same bytes in Node and browser.
 */
import type { ChartSpec } from './chart-terminal.js';

export interface SvgChartOptions {
  width?: number;
  height?: number;
}

/** Line colours of series k (colour-blind-safe Okabe-Ito). */
export const SVG_COLORS = ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#E69F00'] as const;

const n1 = (x: number): string => x.toFixed(1);

function escapeXml(s: string): string {
  return s.replace(/[<>&'"]/g, (c) =>
    c === '<' ? '&lt;' : c === '>' ? '&gt;' : c === '&' ? '&amp;' : c === "'" ? '&apos;' : '&quot;',
  );
}

/** A "nice" axis maximum (1, 2 or 5 times a power of ten) at or above `x`. */
function niceMax(x: number): number {
  if (x <= 1) return 1;
  const p = 10 ** Math.floor(Math.log10(x));
  for (const m of [1, 2, 5, 10]) if (m * p >= x) return m * p;
  return 10 * p;
}

/** Renders `spec` as an SVG document string (with XML declaration, ending in a newline). */
export function renderSvgChart(spec: ChartSpec, opts: SvgChartOptions = {}): string {
  const width = opts.width ?? 720;
  const notes = spec.notes ?? [];
  const height = (opts.height ?? 360) + 18 * notes.length;
  const m = { left: 56, right: 20, top: 40, bottom: 64 + 18 * notes.length };
  const pw = width - m.left - m.right;
  const ph = height - m.top - m.bottom;
  const rounds = Math.max(1, ...spec.series.map((s) => s.values.length));
  const yMax = niceMax(Math.max(0, ...spec.series.flatMap((s) => s.values)));
  const x = (r: number) => m.left + (rounds === 1 ? pw / 2 : ((r - 1) / (rounds - 1)) * pw);
  const y = (v: number) => m.top + ph - (v / yMax) * ph;

  const out: string[] = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
    `<title>${escapeXml(spec.title)}</title>`,
    `<rect width="${width}" height="${height}" fill="#ffffff"/>`,
    `<text x="${width / 2}" y="22" text-anchor="middle" font-size="14">${escapeXml(spec.title)}</text>`,
  ];
  for (let k = 0; k <= 4; k++) {
    const v = (yMax * k) / 4;
    out.push(
      `<line x1="${m.left}" y1="${n1(y(v))}" x2="${m.left + pw}" y2="${n1(y(v))}" stroke="#e0e0e0"/>`,
      `<text x="${m.left - 6}" y="${n1(y(v) + 4)}" text-anchor="end">${Number.isInteger(v) ? v : v.toFixed(1)}</text>`,
    );
  }
  const every = Math.max(1, Math.ceil(rounds / 15));
  for (let r = 1; r <= rounds; r++) {
    if (r !== 1 && r % every !== 0) continue;
    out.push(`<text x="${n1(x(r))}" y="${m.top + ph + 16}" text-anchor="middle">${r}</text>`);
  }
  out.push(
    `<line x1="${m.left}" y1="${m.top + ph}" x2="${m.left + pw}" y2="${m.top + ph}" stroke="#333"/>`,
    `<line x1="${m.left}" y1="${m.top}" x2="${m.left}" y2="${m.top + ph}" stroke="#333"/>`,
    `<text x="${m.left + pw / 2}" y="${m.top + ph + 34}" text-anchor="middle">${escapeXml(spec.xLabel ?? 'round')}</text>`,
    `<text transform="translate(16 ${m.top + ph / 2}) rotate(-90)" text-anchor="middle">blocking findings</text>`,
  );
  spec.series.forEach((s, k) => {
    const color = SVG_COLORS[k % SVG_COLORS.length]!;
    const pts = s.values.map((v, i) => `${n1(x(i + 1))},${n1(y(v))}`);
    if (pts.length > 1) {
      out.push(`<polyline fill="none" stroke="${color}" stroke-width="2" points="${pts.join(' ')}"/>`);
    }
    for (const p of pts) {
      const [cx, cy] = p.split(',');
      out.push(`<circle cx="${cx}" cy="${cy}" r="3" fill="${color}"/>`);
    }
    const lx = m.left + k * 180;
    const ly = height - 14 - 18 * notes.length;
    out.push(
      `<line x1="${lx}" y1="${ly - 4}" x2="${lx + 20}" y2="${ly - 4}" stroke="${color}" stroke-width="2"/>`,
      `<text x="${lx + 26}" y="${ly}">${escapeXml(s.label)}</text>`,
    );
  });
  notes.forEach((line, k) => {
    out.push(
      `<text x="${m.left}" y="${height - 14 - 18 * (notes.length - 1 - k)}">${escapeXml(line)}</text>`,
    );
  });
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}
