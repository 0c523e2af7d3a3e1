/** The comment grammar, as a table: what counts as a command, and what hostile text cannot make one. */
import { describe, expect, it } from 'vitest';
import { MAX_BODY_CHARS, type Parsed, parseComment } from '../../src/serve/comment-parse.js';

const ID = '0123456789abcdef';
const none: Parsed = { kind: 'none' };
const malformed = (problem: RegExp) => ({ kind: 'malformed', problem: expect.stringMatching(problem) });

const cases: [string, string, unknown][] = [
  [
    'a settlement',
    `/revloop settle ${ID} overturned the lock is taken by the caller`,
    {
      kind: 'command',
      command: {
        kind: 'settle',
        finding: ID,
        decision: 'overturned',
        reason: 'the lock is taken by the caller',
      },
    },
  ],
  [
    'a settlement by prefix, CRLF, prose around it',
    `Thanks!\r\n/revloop settle ${ID.slice(0, 8)} upheld real race\r\nbye`,
    {
      kind: 'command',
      command: { kind: 'settle', finding: ID.slice(0, 8), decision: 'upheld', reason: 'real race' },
    },
  ],
  [
    'a re-review with a reason',
    '/revloop review flaky reviewer',
    { kind: 'command', command: { kind: 'review', reason: 'flaky reviewer' } },
  ],
  [
    'a re-review without one',
    '  /revloop review',
    { kind: 'command', command: { kind: 'review', reason: null } },
  ],
  ['pause', '/revloop pause', { kind: 'command', command: { kind: 'pause' } }],
  ['resume', '/revloop resume\n', { kind: 'command', command: { kind: 'resume' } }],
  ['plain prose', 'LGTM, merging after CI', none],
  ['prose that mentions the command mid-line', 'you can say /revloop pause to stop it', none],
  ['inline code', '`/revloop pause`', none],
  ['a quote of someone else', `> /revloop settle ${ID} overturned fine`, none],
  ['a nested quote', `>> /revloop pause`, none],
  ['a fenced block', '```\n/revloop pause\n```', none],
  ['a tilde fence left open', '~~~\n/revloop pause', none],
  ['a fence closed by a shorter one is still open', '````\n```\n/revloop pause\n````', none],
  ['indented code', '    /revloop pause', none],
  ['a tab-indented line', '\t/revloop pause', none],
  ['an HTML comment', '<!--\n/revloop pause\n-->', none],
  ['an unclosed HTML comment', 'hi <!-- \n/revloop pause', none],
  ['a fullwidth solidus', '／revloop pause', none],
  ['a Cyrillic о', '/revlоop pause', none],
  ['a zero-width space inside', '/rev\u200bloop pause', none],
  ['a capital I for l', '/revIoop pause', none],
  ['another word that starts so', '/revloopx pause', none],
  [
    'a command after a quoted one counts once',
    `> /revloop pause\n/revloop resume`,
    { kind: 'command', command: { kind: 'resume' } },
  ],
  ['two commands', '/revloop pause\n/revloop resume', malformed(/2 commands in one comment/)],
  [
    'many commands',
    Array.from({ length: 500 }, () => '/revloop pause').join('\n'),
    malformed(/500 commands/),
  ],
  ['an unknown verb', '/revloop merge', malformed(/unknown command "merge"/)],
  ['no verb', '/revloop', malformed(/no command/)],
  ['pause with words after', '/revloop pause for a bit', malformed(/takes nothing after it/)],
  ['a finding that is not hex', '/revloop settle ../../etc overturned x', malformed(/6 to 16 hex digits/)],
  ['a finding too short to be unique', '/revloop settle abc overturned x', malformed(/6 to 16 hex digits/)],
  ['a look-alike decision', `/revloop settle ${ID} overturnеd x`, malformed(/upheld or overturned/)],
  ['a settlement without a reason', `/revloop settle ${ID} upheld`, malformed(/a reason after the decision/)],
  [
    'a reason with a bidi override',
    `/revloop settle ${ID} upheld fine \u202e`,
    malformed(/control or invisible/),
  ],
  ['a reason too long', `/revloop settle ${ID} upheld ${'x'.repeat(501)}`, malformed(/longer than 500/)],
];

describe('parseComment', () => {
  it.each(cases)('%s', (_name, body, expected) => {
    expect(parseComment(body)).toEqual(expected);
  });

  it('a body longer than the forges allow is not read at all', () => {
    expect(parseComment(`/revloop pause\n${'x'.repeat(MAX_BODY_CHARS)}`)).toEqual(none);
  });

  it('reads a body at the limit in linear time (no pathological pattern)', () => {
    const body = `${'> `x`\n'.repeat(MAX_BODY_CHARS / 12)}/revloop pause`;
    expect(parseComment(body)).toEqual({ kind: 'command', command: { kind: 'pause' } });
  });
});
