/**
 * The one escaping function for text that reaches a terminal. Reviewer
 * replies (files, claims, scenarios), agent output in a run's detail, ids
 * from the ledger and change names all end up on stdout or stderr, and a
 * terminal obeys what it is sent: `\e[2J` clears the screen, `\e]0;…\a` sets
 * the title, U+202E reverses what follows. Every C0 control but newline and
 * tab, DEL, every C1 control, the bidi overrides and isolates and the Unicode
 * line separators are made visible instead (`\x1b`, `\u202e`), so the reader
 * sees that they were there.
 */

// C0 without \t and \n, DEL and C1, bidi marks/embeddings/overrides/isolates, LS/PS.
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g;

const escapeOne = (c: string): string => {
  const n = c.charCodeAt(0);
  return n < 0x100 ? `\\x${n.toString(16).padStart(2, '0')}` : `\\u${n.toString(16).padStart(4, '0')}`;
};

/** `text` with every character a terminal would act on (but line breaks and tabs) written as an escape. */
export const terminalSafe = (text: string): string => text.replace(UNSAFE, escapeOne);

/**
 * JSON for a terminal or a pipe: JSON.stringify already escapes C0, this
 * escapes the rest of UNSAFE the same way JSON does (`\u202e`), so the
 * document parses to exactly the same value.
 */
export const jsonSafe = (json: string): string =>
  json.replace(UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
