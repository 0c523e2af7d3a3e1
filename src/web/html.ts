/**
 * HTML for the page shells. Pages carry no data: the browser fetches JSON
 * and renders it with textContent, so no reviewer text ever passes through
 * an HTML parser. What the shells do interpolate goes through {@link esc}.
 */
import { createHash } from 'node:crypto';

/** Escapes text for an HTML text node or a double-quoted attribute. */
export const esc = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The import map: the one bare specifier the shared modules use. */
export const IMPORT_MAP = JSON.stringify({ imports: { zod: '/vendor/zod/index.js' } });

/** sha256 (base64) of the import map, for the CSP's script-src. */
export const IMPORT_MAP_HASH = createHash('sha256').update(IMPORT_MAP).digest('base64');

export type PageName = 'runs' | 'run' | 'service' | 'calibration' | 'lab' | 'eval';

const TITLES: Record<PageName, string> = {
  runs: 'Runs',
  run: 'Run',
  service: 'Service',
  calibration: 'Calibration',
  lab: 'Loop Lab',
  eval: 'Eval',
};

const NAV: [PageName, string][] = [
  ['runs', '/'],
  ['service', '/service'],
  ['calibration', '/calibration'],
  ['lab', '/lab'],
  ['eval', '/eval'],
];

/** The shell of one page: token in a meta tag, styles, uPlot where charts are drawn, the page module. */
export function pageShell(page: PageName, token: string): string {
  const charts = page !== 'runs' && page !== 'eval' && page !== 'service';
  const current = page === 'run' ? 'runs' : page;
  const nav = NAV.map(
    ([p, href]) => `<a href="${href}"${p === current ? ' aria-current="page"' : ''}>${esc(TITLES[p])}</a>`,
  ).join('');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="revloop-token" content="${esc(token)}">
<title>${esc(TITLES[page])} · revloop</title>
<link rel="stylesheet" href="/assets/app.css">
${charts ? '<link rel="stylesheet" href="/assets/uplot.css">\n' : ''}<script type="importmap">${IMPORT_MAP}</script>
${charts ? '<script src="/assets/uplot.js" defer></script>\n' : ''}<script type="module" src="/js/web/client/${page}-page.js"></script>
</head>
<body>
<header class="top"><span class="brand">revloop</span><nav>${nav}</nav></header>
<main id="app"><p class="muted">Loading…</p><noscript>This dashboard needs JavaScript.</noscript></main>
</body>
</html>
`;
}
