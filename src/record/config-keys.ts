/**
 * Reads the top-level `keys:` list of a YAML config without loading a YAML
 * parser: the yaml package alone costs verify more start-up time than node
 * itself. Only the plain forms `init` writes and people type are read here
 * (a block list of `- path` items, or a one-line `[a, b]`); anything else
 * returns undefined and the caller falls back to the real parser.
 */

/** Characters that make a scalar more than a plain path (anchors, tags, flow, block scalars, comments). */
const PLAIN = /^[^\s'"&*!|>{}[\],#%@`][^'"{}[\],#]*$/;

function scalar(raw: string): string | undefined {
  const t = raw.trim();
  const quoted = /^'([^']*)'$|^"([^"\\]*)"$/.exec(t);
  if (quoted) return quoted[1] ?? quoted[2];
  if (!PLAIN.test(t) || /:\s|\s#|:$/.test(t)) return undefined;
  return t;
}

const stripComment = (s: string): string => s.replace(/(^|\s)#.*$/, '').trimEnd();

/** The `keys:` list of YAML text, [] when absent, or undefined when it needs the real parser. */
export function fastConfigKeys(text: string): string[] | undefined {
  if (/^(---|\.\.\.|%)|^[\t"'?{[&*!]|^[^\n]*\t/m.test(text)) return undefined;
  const lines = text.split(/\r?\n/);
  const at = lines.flatMap((l, i) => (/^keys\s*:/.test(l) ? [i] : []));
  if (at.length === 0) return /^[^#\s][^\n]*\bkeys\b/m.test(text) ? undefined : [];
  if (at.length > 1) return undefined;
  const i = at[0] as number;
  const rest = stripComment((lines[i] as string).replace(/^keys\s*:/, '')).trim();
  if (rest) {
    const flow = /^\[(.*)\]$/.exec(rest);
    if (!flow) return undefined;
    if (!flow[1]?.trim()) return [];
    const items = flow[1].split(',').map(scalar);
    return items.every((x): x is string => x !== undefined) ? items : undefined;
  }
  const out: string[] = [];
  let indent: number | null = null;
  for (const line of lines.slice(i + 1)) {
    const body = stripComment(line);
    if (!body.trim()) continue;
    const m = /^( *)- +(.*)$/.exec(body);
    if (!m) {
      if (/^\S/.test(body)) break;
      return undefined;
    }
    const pad = (m[1] as string).length;
    if (indent === null) indent = pad;
    if (pad !== indent) return undefined;
    const item = scalar(m[2] as string);
    if (item === undefined) return undefined;
    out.push(item);
  }
  return out;
}
