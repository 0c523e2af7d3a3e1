/**
 * The grammar of commands in a pull-request comment, read from untrusted
 * text. A command is a line of the comment's own prose that starts with the
 * ASCII `/revloop` (up to three spaces before it, as Markdown allows): text
 * quoted with `>`, fenced or indented code, and HTML comments are someone
 * else's words or hidden, and never count. Nothing is normalised, so a
 * look-alike (`／revloop`, a Cyrillic letter, a zero-width space inside) is
 * not a command. One command per comment: a comment with several is
 * answered with the usage and none of them runs.
 */
import { SETTLE_DECISIONS, type SettleDecision } from '../core/choices.js';

export type Command =
  | { kind: 'settle'; finding: string; decision: SettleDecision; reason: string }
  | { kind: 'review'; reason: string | null }
  | { kind: 'pause' }
  | { kind: 'resume' };

export type Parsed =
  | { kind: 'none' }
  | { kind: 'malformed'; problem: string }
  | { kind: 'command'; command: Command };

/** GitHub's and GitLab's own limit on a comment's length; a longer body did not come from them. */
export const MAX_BODY_CHARS = 65_536;
/** A reason is a sentence or two, as `--reason` and `--note` are. */
export const MAX_REASON_CHARS = 500;

export const USAGE =
  'revloop reads one command per comment: `/revloop settle <finding> upheld|overturned <reason>`, `/revloop review [reason]`, `/revloop pause`, `/revloop resume`.';

const COMMAND_LINE = /^ {0,3}\/revloop(?:[ \t]|$)/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const FINDING = /^[0-9a-f]{6,16}$/;
// Control characters, and the invisible ones that change how a reason reads (bidirectional
// overrides, zero-width characters, the byte-order mark).
const HIDDEN =
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/;

/** The lines of the body that are the author's own visible prose. */
function proseLines(body: string): string[] {
  const lines = body.replace(/<!--[\s\S]*?(?:-->|$)/g, '').split(/\r\n|\r|\n/);
  const prose: string[] = [];
  let fence: string | null = null;
  for (const line of lines) {
    const f = FENCE.exec(line)?.[1];
    if (fence !== null) {
      // A fence closes with the same character, at least as long, and nothing after it.
      if (f && f[0] === fence[0] && f.length >= fence.length && line.trim() === f) fence = null;
      continue;
    }
    if (f) {
      fence = f;
      continue;
    }
    if (/^(?: {4}|\t)/.test(line)) continue;
    if (/^ {0,3}>/.test(line)) continue;
    prose.push(line);
  }
  return prose;
}

export function parseComment(body: string): Parsed {
  if (body.length > MAX_BODY_CHARS) return { kind: 'none' };
  const commands = proseLines(body).filter((l) => COMMAND_LINE.test(l));
  if (commands.length === 0) return { kind: 'none' };
  if (commands.length > 1)
    return { kind: 'malformed', problem: `${commands.length} commands in one comment` };
  const words = (commands[0] as string).trim().slice('/revloop'.length).trim();
  const verb = /^\S*/.exec(words)?.[0] ?? '';
  const tail = words.slice(verb.length).trim();
  switch (verb) {
    case 'settle': {
      const [, finding = '', decision = '', reason = ''] = /^(\S*)[ \t]*(\S*)[ \t]*(.*)$/.exec(tail) ?? [];
      if (!FINDING.test(finding))
        return {
          kind: 'malformed',
          problem: 'the finding is its id as revloop shows it (6 to 16 hex digits)',
        };
      const d = SETTLE_DECISIONS.find((x) => x === decision);
      if (!d) return { kind: 'malformed', problem: `the decision is ${SETTLE_DECISIONS.join(' or ')}` };
      const why = reason.trim();
      const bad = checkReason(why, true);
      if (bad) return { kind: 'malformed', problem: bad };
      return { kind: 'command', command: { kind: 'settle', finding, decision: d, reason: why } };
    }
    case 'review': {
      const bad = checkReason(tail, false);
      if (bad) return { kind: 'malformed', problem: bad };
      return { kind: 'command', command: { kind: 'review', reason: tail || null } };
    }
    case 'pause':
    case 'resume':
      if (tail) return { kind: 'malformed', problem: `/revloop ${verb} takes nothing after it` };
      return { kind: 'command', command: { kind: verb } };
    default:
      return {
        kind: 'malformed',
        problem: verb ? `unknown command ${JSON.stringify(verb.slice(0, 20))}` : 'no command',
      };
  }
}

function checkReason(reason: string, required: boolean): string | null {
  if (required && !reason) return 'a settlement says why: a reason after the decision';
  if (reason.length > MAX_REASON_CHARS) return `the reason is longer than ${MAX_REASON_CHARS} characters`;
  if (HIDDEN.test(reason)) return 'the reason holds control or invisible characters';
  return null;
}
