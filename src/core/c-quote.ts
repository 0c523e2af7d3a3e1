/**
 * Git's C-quoted names (core.quotePath=true: `"b/src/\\303\\274n.rs"`), read
 * back as the path they spell, and a diff as prompts show it: the canonical
 * diff (whose bytes and digest are signed) keeps its quoting; a reviewer is
 * shown, and cites, the path itself, as every other output spells it.
 */

const ESCAPES: Record<string, number> = { a: 7, b: 8, t: 9, n: 10, v: 11, f: 12, r: 13, '"': 34, '\\': 92 };

/**
 * Reads a C-quoted name (`"a/tab\there"`, octal bytes for non-ASCII) from the
 * start of `s`; returns the name and the rest after the closing quote.
 */
export function unquote(s: string): { value: string; rest: string } {
  const bytes: number[] = [];
  let i = 1;
  while (i < s.length && s[i] !== '"') {
    const ch = s[i] as string;
    if (ch !== '\\') {
      for (const b of Buffer.from(ch, 'utf8')) bytes.push(b);
      i++;
      continue;
    }
    const next = s[i + 1] ?? '';
    if (/[0-7]/.test(next)) {
      bytes.push(Number.parseInt(s.slice(i + 1, i + 4), 8));
      i += 4;
    } else {
      bytes.push(ESCAPES[next] ?? next.charCodeAt(0));
      i += 2;
    }
  }
  return { value: Buffer.from(bytes).toString('utf8'), rest: s.slice(i + 1) };
}

/** File-header lines whose names git may quote (the others of a header carry no name). */
const NAMED = [
  'diff --git ',
  '--- ',
  '+++ ',
  'rename from ',
  'rename to ',
  'copy from ',
  'copy to ',
  'Binary files ',
];
const QUOTED = /"(?:[^"\\]|\\.)*"/g;
/**
 * A name that would break the prompt's lines or read as another stays quoted:
 * a newline or control byte, a quote, bytes that are not UTF-8 (read as U+FFFD).
 */
const UNSAFE = /[\u0000-\u001f\u007f"\ufffd]/;

/**
 * `diff` with each quoted name of its file headers (from `diff --git` to the
 * first hunk) written plainly; hunk lines are never touched.
 */
export function unquotedNames(diff: string): string {
  if (!diff.includes('"')) return diff;
  const lines = diff.split('\n');
  let header = false;
  for (const [i, line] of lines.entries()) {
    if (line.startsWith('diff --git ')) header = true;
    else if (line.startsWith('@@')) header = false;
    if (!header || !line.includes('"') || !NAMED.some((p) => line.startsWith(p))) continue;
    lines[i] = line.replace(QUOTED, (q) => {
      const plain = unquote(q).value;
      return UNSAFE.test(plain) ? q : plain;
    });
  }
  return lines.join('\n');
}
