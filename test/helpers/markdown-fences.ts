/**
 * The line of a fenced code block a Markdown body leaves open (null when every fence closes),
 * read as CommonMark reads fences: an opening fence is up to three spaces, then three or more
 * backticks or tildes (a backtick fence's info string holds no backtick); only a line of the
 * same character, at least as long, with nothing after it, closes it.
 */
export function openFenceAt(body: string): number | null {
  let open: { char: string; length: number; line: number } | null = null;
  for (const [n, line] of body.split('\n').entries()) {
    const m = /^ {0,3}(`{3,}|~{3,})(.*)$/.exec(line);
    if (!m) continue;
    const run = m[1] ?? '';
    const rest = m[2] ?? '';
    if (open === null) {
      if (!(run[0] === '`' && rest.includes('`'))) open = { char: run[0] ?? '', length: run.length, line: n };
    } else if (run[0] === open.char && run.length >= open.length && rest.trim() === '') open = null;
  }
  return open?.line ?? null;
}
