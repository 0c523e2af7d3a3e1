/**
 * Reviewer text is data (issue 18, point 8): a claim may carry `@team`
 * mentions, HTML, markdown that closes our layout, or control and bidi
 * characters that hide text. Everything a reviewer wrote passes through here
 * before it reaches a forge.
 */
import { longestBacktickRun } from '../core/backtick-runs.js';

// C0/C1 controls (tab and newline kept), bidi embeddings, overrides and isolates, zero-width marks.
const INVISIBLE =
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/g;

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
      // A word joiner after @ keeps "@name" readable and stops the ping (GitHub and GitLab); after # it stops the link.
      .replace(/@(?=[A-Za-z0-9_\\])/g, '@\u2060')
      .replace(/\\#(?=\d)/g, '\\#\u2060')
      .replace(/\n+/g, ' ')
      .trim()
  );
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
