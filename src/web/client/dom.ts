/**
 * DOM helpers for the dashboard's pages. Every piece of text, reviewer text
 * above all, becomes a text node: nothing here parses HTML, so a claim like
 * `<img onerror=...>` is shown as the characters it is.
 */

export type Child = Node | string | number | null | undefined | false | Child[];
type AttrValue = string | number | boolean | null | undefined | ((e: Event) => void);

/** Creates an element; `on…` attributes become listeners, `false`/null attributes are left out. */
export function h(tag: string, attrs: Record<string, AttrValue> = {}, ...children: Child[]): HTMLElement {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (typeof v === 'function') el.addEventListener(k.slice(2).toLowerCase(), v);
    else if (k === 'style' || k.startsWith('on')) throw new Error(`h(): refusing attribute ${k}`);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  append(el, children);
  return el;
}

export function append(el: Node, children: Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else
      el.appendChild(typeof c === 'string' || typeof c === 'number' ? document.createTextNode(String(c)) : c);
  }
}

/** Replaces an element's children. */
export function replace(el: Element, ...children: Child[]): void {
  el.replaceChildren();
  append(el, children);
}

export const token = (): string =>
  document.querySelector('meta[name="revloop-token"]')?.getAttribute('content') ?? '';

export async function getJson<T>(url: string): Promise<T> {
  const res = await fetch(url, { headers: { accept: 'application/json' } });
  const body = (await res.json().catch(() => ({}))) as T & { error?: string };
  if (!res.ok) throw new Error(body.error ?? `${url}: HTTP ${res.status}`);
  return body;
}

export const short = (sha: string | null | undefined): string => (sha ? sha.slice(0, 8) : '—');

export const cost = (usd: number): string =>
  usd === 0 ? '$0' : usd < 0.01 ? `$${usd.toFixed(4)}` : `$${usd.toFixed(2)}`;

/** "12 s", "4 min", "3 h", "2 d". */
export function age(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.round(s / 60)} min`;
  if (s < 86400) return `${Math.round(s / 3600)} h`;
  return `${Math.round(s / 86400)} d`;
}

export const when = (at: number): string => new Date(at).toLocaleString();

/**
 * A table in its scrolling wrapper: `head` the header row's cells (a string
 * is a plain `th`; an element, a `th` of its own), `rows` the body's rows.
 */
export const table = (
  attrs: Record<string, AttrValue>,
  head: (string | HTMLElement)[],
  rows: Child[],
): HTMLElement =>
  h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      attrs,
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          head.map((c) => (typeof c === 'string' ? h('th', {}, c) : c)),
        ),
      ),
      h('tbody', {}, rows),
    ),
  );

/** A coloured pill; `kind` picks the CSS class (sev-MAJOR, st-completed, oc-clear, ok, bad). */
export const badge = (text: string, kind = ''): HTMLElement =>
  h('span', { class: `badge ${kind}`.trim() }, text);

export const statusBadge = (s: string): HTMLElement => badge(s, `st-${s}`);
export const outcomeBadge = (o: string | null): HTMLElement | string => (o ? badge(o, `oc-${o}`) : '—');
export const severityBadge = (s: string): HTMLElement => badge(s, `sev-${s}`);

export const mount = (): HTMLElement => {
  const el = document.getElementById('app');
  if (!el) throw new Error('no #app element');
  return el;
};

export const errorBox = (err: unknown): HTMLElement =>
  h('p', { class: 'error' }, err instanceof Error ? err.message : String(err));
