/**
 * Reviewer text is data: a claim may carry `@team` mentions, HTML, markdown
 * that closes our layout, or control and bidi characters that hide text.
 * Everything a reviewer wrote passes through here before it reaches a forge
 * or any export a forge or CI page renders.
 */
import { longestBacktickRun } from '../core/backtick-runs.js';

// C0/C1 controls (tab and newline kept), bidi embeddings, overrides and isolates, zero-width marks.
const INVISIBLE =
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/g;

// A word joiner after @ keeps "@name" readable and stops the ping (GitHub and GitLab); after # it stops the link.
const MENTION = /@(?=[A-Za-z0-9_\\])/g;
const MENTION_INERT = '@\u2060';
const ISSUE_LINK = /#(?=\d)/g;
const ISSUE_LINK_INERT = '#\u2060';

const hex = (c: string): string => `\\u{${(c.codePointAt(0) ?? 0).toString(16)}}`;

/**
 * One paragraph of reviewer prose, safe inside markdown: controls shown as
 * `\u{..}`, `@` and `#` references that would ping or link made inert, HTML
 * and markdown metacharacters escaped, newlines folded to spaces.
 */
export function neutralise(text: string, maxChars = 4000): string {
  let s = text.replace(/\r\n?/g, '\n');
  if (s.length > maxChars) s = `${s.slice(0, maxChars)}…`;
  return (
    s
      .replace(/[\\`*_{}[\]()<>#+!|~&"'=-]/g, (c) =>
        c === '<' ? '&lt;' : c === '>' ? '&gt;' : c === '&' ? '&amp;' : `\\${c}`,
      )
      // After the escapes, so the backslash of `\u{..}` is shown, not read as one.
      .replace(INVISIBLE, hex)
      .replace(MENTION, MENTION_INERT)
      .replace(ISSUE_LINK, ISSUE_LINK_INERT)
      .replace(/\n+/g, ' ')
      .trim()
  );
}

/**
 * Reviewer text for an output that shows it as plain text (SARIF, JUnit,
 * annotations, Markdown already escaped): mentions and issue links made
 * inert as `neutralise` makes them, nothing else changed.
 */
export function inertMentions(text: string): string {
  return text.replace(MENTION, MENTION_INERT).replace(ISSUE_LINK, ISSUE_LINK_INERT);
}

/** Text for a code span or a suggestion block: only controls are escaped, nothing else is interpreted. */
export function codeText(text: string): string {
  return text.replace(/\r\n?/g, '\n').replace(INVISIBLE, hex);
}

/** A fence longer than any backtick run in `text`, so the text cannot close it. */
export function fenceFor(text: string): string {
  const longest = Math.max(2, longestBacktickRun(text));
  return '`'.repeat(longest + 1);
}

/** A line that opens or closes a fenced code block: its fence (three or more backticks or tildes), else null. */
function fenceOf(line: string): string | null {
  const m = /^ {0,3}(`{3,}|~{3,})/.exec(line);
  return m?.[1] ?? null;
}

/**
 * A Markdown body cut to `max` characters at a line break outside every
 * fenced block, then `note`: a cut inside a fence would leave it open, and
 * everything after it (the note too) would show as code.
 */
export function clipOutsideFences(body: string, max: number, note: string): string {
  if (body.length <= max) return body;
  let open: string | null = null;
  let safe = 0;
  for (let at = 0; at <= max; ) {
    const nl = body.indexOf('\n', at);
    const end = nl === -1 ? body.length : nl;
    if (end > max) break;
    const fence = fenceOf(body.slice(at, end));
    if (open === null && fence) open = fence;
    else if (
      open !== null &&
      fence &&
      fence[0] === open[0] &&
      fence.length >= open.length &&
      body.slice(at, end).trim() === fence
    )
      open = null;
    if (open === null) safe = end;
    if (nl === -1) break;
    at = nl + 1;
  }
  return `${body.slice(0, safe)}\n\n${note}`;
}
