/**
 * The fast path of the config reader: the top-level `keys:` list of a YAML
 * config, read without loading the yaml package (the package alone costs
 * `verify` more start-up time than node itself).
 *
 * It reads a strict subset of YAML: ASCII text with LF line ends, block
 * mappings whose keys are plain names, block sequences (`- item`, and
 * `- key: value` starting a mapping), one-line scalars (plain, or quoted
 * without escapes), one-line flow collections, and comments. It answers only
 * when the whole text is inside that subset, so the yaml package parses it
 * without error and builds the same `keys:` (duplicate keys, stray
 * indentation, anchors, tags, block scalars, multi-line scalars, document
 * markers and every other form leave it), and only when `keys:` is absent,
 * empty or a list of strings. Otherwise it returns undefined and the caller
 * reads the file with the yaml package (document.ts).
 * test/config/fast-keys.property.test.ts holds it to the yaml package's
 * answer on generated texts.
 */

/** Thrown inside the reader when the text leaves the subset; never escapes this module. */
const BEYOND = Symbol('beyond the subset');

/** A plain scalar the yaml package may read as a number, a boolean or null rather than a string. */
const MAYBE_NOT_STRING = Symbol('maybe not a string');

type Value = string | typeof MAYBE_NOT_STRING | null | Value[] | Map<string, Value>;

interface Line {
  indent: number;
  body: string;
}

/** A mapping key the subset reads: a plain name, never one YAML resolves to null or a boolean. */
const KEY = /^([A-Za-z_][A-Za-z0-9_-]{0,99}):(?= |$)/;
/** Plain words YAML reads as null or a boolean, never as a string. */
const NULL_OR_BOOLEAN = /^(null|Null|NULL|true|True|TRUE|false|False|FALSE)$/;

/** The `keys:` list of YAML text, [] when absent or empty, or undefined when it needs the real parser. */
export function fastConfigKeys(text: string): string[] | undefined {
  let doc: Value;
  try {
    doc = readSubset(text);
  } catch (err) {
    if (err === BEYOND) return undefined;
    throw err;
  }
  if (doc === null) return [];
  if (!(doc instanceof Map)) return undefined;
  const keys = doc.get('keys');
  if (keys === undefined || keys === null) return [];
  if (!Array.isArray(keys)) return undefined;
  return keys.every((k): k is string => typeof k === 'string') ? keys : undefined;
}

function readSubset(text: string): Value {
  // Printable ASCII and LF only: no tab, CR, byte-order mark or other character YAML treats specially.
  if (!/^[\x20-\x7e\n]*$/.test(text)) throw BEYOND;
  const lines: Line[] = [];
  for (const raw of text.split('\n')) {
    if (/^ *(#|$)/.test(raw)) continue;
    const indent = (/^ */.exec(raw)?.[0] ?? '').length;
    lines.push({ indent, body: raw.slice(indent).trimEnd() });
  }
  if (lines.length === 0) return null;
  if (lines[0]?.indent !== 0) throw BEYOND;
  const reader = new BlockReader(lines);
  const doc = reader.block(0);
  // A line no block took is at an indent no block has: a multi-line scalar, or an error.
  if (!reader.done()) throw BEYOND;
  return doc;
}

const isItem = (body: string): boolean => body === '-' || body.startsWith('- ');

/** Block structure by indentation: each block takes only the lines at exactly its indent. */
class BlockReader {
  private i = 0;

  constructor(private readonly lines: Line[]) {}

  done(): boolean {
    return this.i === this.lines.length;
  }

  block(indent: number): Value {
    const line = this.lines[this.i];
    if (!line || line.indent !== indent) throw BEYOND;
    return isItem(line.body) ? this.sequence(indent) : this.mapping(indent);
  }

  private mapping(indent: number): Map<string, Value> {
    const map = new Map<string, Value>();
    for (let line = this.lines[this.i]; line?.indent === indent; line = this.lines[this.i]) {
      const key = KEY.exec(line.body)?.[1];
      // YAML refuses a key twice in one mapping.
      if (key === undefined || NULL_OR_BOOLEAN.test(key) || map.has(key)) throw BEYOND;
      this.i++;
      map.set(key, this.value(line.body.slice(key.length + 1), indent, true));
    }
    return map;
  }

  private sequence(indent: number): Value[] {
    const out: Value[] = [];
    for (
      let line = this.lines[this.i];
      line?.indent === indent && isItem(line.body);
      line = this.lines[this.i]
    ) {
      const rest = line.body.slice(1);
      const pad = (/^ */.exec(rest)?.[0] ?? '').length;
      if (KEY.test(rest.slice(pad))) {
        // `- key: value` starts a mapping whose further keys sit at the first key's column.
        this.lines[this.i] = { indent: indent + 1 + pad, body: rest.slice(pad) };
        out.push(this.mapping(indent + 1 + pad));
        continue;
      }
      this.i++;
      out.push(this.value(rest, indent, false));
    }
    return out;
  }

  /** What follows `key:` or `-`: a value on the line, else the block below (or null). */
  private value(rest: string, indent: number, ofKey: boolean): Value {
    const inline = inlineValue(rest);
    if (inline !== undefined) return inline;
    const next = this.lines[this.i];
    if (!next) return null;
    if (next.indent > indent) return this.block(next.indent);
    // A key's list may sit at the key's own indent.
    if (ofKey && next.indent === indent && isItem(next.body)) return this.sequence(indent);
    return null;
  }
}

/** The value written on the line after `key:` or `-`, or undefined when there is none (only a comment). */
function inlineValue(rest: string): Value | undefined {
  if (rest !== '' && !rest.startsWith(' ')) throw BEYOND;
  const s = rest.trimStart();
  if (s === '' || s.startsWith('#')) return undefined;
  if (s[0] === '[' || s[0] === '{' || s[0] === "'" || s[0] === '"') {
    const { value, end } = s[0] === '[' || s[0] === '{' ? flow(s, 0) : quoted(s, 0);
    if (end !== s.length && !/^ +#/.test(s.slice(end))) throw BEYOND;
    return value;
  }
  const comment = s.indexOf(' #');
  return plain(comment === -1 ? s : s.slice(0, comment).trimEnd(), /[[\]{}]/);
}

/** A plain scalar: no indicator first, no `: ` or ` #` inside, nothing of `forbidden`. */
function plain(text: string, forbidden: RegExp): Value {
  if (text === '' || /^[-?:,[\]{}#&*!|>'"%@`]/.test(text) || /: |:$| #/.test(text) || forbidden.test(text))
    throw BEYOND;
  // YAML's core schema reads these as null, booleans or numbers (with room to spare: `1_0` is a string there).
  if (
    NULL_OR_BOOLEAN.test(text) ||
    /^~|^[-+]?\.(inf|Inf|INF|nan|NaN|NAN)$|^[-+]?\.?[0-9][0-9a-zA-Z._+-]*$/.test(text)
  )
    return MAYBE_NOT_STRING;
  return text;
}

function quoted(s: string, at: number): { value: string; end: number } {
  const re = s[at] === "'" ? /'((?:[^']|'')*)'/y : /"([^"\\]*)"/y;
  re.lastIndex = at;
  const m = re.exec(s);
  if (!m) throw BEYOND;
  return { value: s[at] === "'" ? (m[1] ?? '').replaceAll("''", "'") : (m[1] ?? ''), end: re.lastIndex };
}

/** A one-line flow sequence or mapping starting at `at`, and where it ends. */
function flow(s: string, at: number): { value: Value; end: number } {
  const close = s[at] === '[' ? ']' : '}';
  const map = close === '}' ? new Map<string, Value>() : null;
  const list: Value[] = [];
  let i = skipSpaces(s, at + 1);
  if (s[i] === close) return { value: map ?? list, end: i + 1 };
  for (;;) {
    if (map) {
      const key = /^([A-Za-z_][A-Za-z0-9_-]{0,99}): /.exec(s.slice(i))?.[1];
      if (key === undefined || NULL_OR_BOOLEAN.test(key) || map.has(key)) throw BEYOND;
      const item = flowItem(s, skipSpaces(s, i + key.length + 2));
      map.set(key, item.value);
      i = item.end;
    } else {
      const item = flowItem(s, i);
      list.push(item.value);
      i = item.end;
    }
    i = skipSpaces(s, i);
    if (s[i] === close) return { value: map ?? list, end: i + 1 };
    if (s[i] !== ',') throw BEYOND;
    i = skipSpaces(s, i + 1);
    // A trailing comma, or an empty entry, leaves the subset.
    if (s[i] === close || s[i] === ',') throw BEYOND;
  }
}

function flowItem(s: string, at: number): { value: Value; end: number } {
  const c = s[at];
  if (c === '[' || c === '{') return flow(s, at);
  if (c === "'" || c === '"') return quoted(s, at);
  const text = (/^[^,[\]{}]*/.exec(s.slice(at))?.[0] ?? '').trimEnd();
  // A colon or a comment inside a flow collection leaves the subset.
  return { value: plain(text, /[:#]/), end: at + text.length };
}

const skipSpaces = (s: string, i: number): number => {
  let j = i;
  while (s[j] === ' ') j++;
  return j;
};
