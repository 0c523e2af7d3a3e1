/** Reviewer text is data (issue 18, point 8); markers and diff lines parse exactly. */
import { describe, expect, it } from 'vitest';
import { patchSpans, spanOf } from '../../src/forge/diff-lines.js';
import { findingMarker, parseFindingMarker, parseRunMarker } from '../../src/forge/markers.js';
import { MAX_BODY, standingBody } from '../../src/forge/render.js';
import { suggestLines } from '../../src/forge/suggestion.js';
import type { ViewFinding } from '../../src/forge/types.js';
import type { FileHunks } from '../../src/ports/git.js';
import { clipOutsideFences, fenceFor, inertMentions, neutralise } from '../../src/report/neutralise.js';
import { openFenceAt } from '../helpers/markdown-fences.js';

describe('neutralise', () => {
  it.each([
    ['@octocat please look', '@\u2060octocat please look'],
    ['cc @acme/security', '@\u2060acme/security'],
    ['<img src=x onerror=alert(1)>', '&lt;img src\\=x onerror\\=alert\\(1\\)&gt;'],
    ['closes #12', 'closes \\#\u206012'],
    [
      '</details> <!-- revloop finding=x -->',
      '&lt;/details&gt; &lt;\\!\\-\\- revloop finding\\=x \\-\\-&gt;',
    ],
    ['a & b', 'a &amp; b'],
    ['[click](https://evil.example)', '\\[click\\]\\(https://evil.example\\)'],
    ['a\u202eb\u0007c', 'a\\u{202e}b\\u{7}c'],
    ['two\nlines\r\nhere', 'two lines here'],
  ])('%j', (input, out) => {
    expect(neutralise(input)).toContain(out);
  });

  it('never lets a claim open an HTML element or a mention', () => {
    const s = neutralise('<b>@here</b>\u2066`code`\u2069');
    expect(s).not.toMatch(/<[a-z/]/i);
    expect(s).not.toMatch(/@here/);
    expect(s).not.toMatch(/[\u2066\u2069]/);
  });
});

describe('inertMentions, for outputs that show reviewer text as plain text', () => {
  it.each([
    ['cc @org/team and @octocat', 'cc @\u2060org/team and @\u2060octocat'],
    ['closes #12, see issue#3', 'closes #\u206012, see issue#\u20603'],
    ['mail a@b.c, not a mention', 'mail a@\u2060b.c, not a mention'],
    ['@ alone, # alone, C# and #define', '@ alone, # alone, C# and #define'],
  ])('%j', (input, out) => expect(inertMentions(input)).toBe(out));

  it('agrees with neutralise on what it makes inert', () => {
    const text = 'ping @org/team about #42';
    expect(neutralise(text)).toContain('@\u2060org/team');
    expect(inertMentions(text)).toBe('ping @\u2060org/team about #\u206042');
  });
});

describe('markers', () => {
  it('round-trips and is found only at the start of a body', () => {
    const m = { fingerprint: 'abc123', runId: 'r1', revision: 'a'.repeat(40) };
    expect(parseFindingMarker(`${findingMarker(m)}\nbody`)).toEqual(m);
    expect(parseFindingMarker(`> quoted\n${findingMarker(m)}`)).toBeNull();
    expect(parseRunMarker(findingMarker(m))).toBeNull();
    expect(() => findingMarker({ ...m, runId: 'r1 --> <b>' })).toThrow();
  });
});

describe('the diff lines a forge accepts comments on', () => {
  const patch = [
    '@@ -1,3 +1,4 @@',
    ' a',
    '-b',
    '+B',
    '+C',
    ' d',
    '@@ -10,2 +11,2 @@ fn',
    ' x',
    '-y',
    '+Y',
  ].join('\n');
  it('are the new side of each hunk', () => {
    expect(patchSpans(patch)).toEqual([
      { first: 1, last: 4 },
      { first: 11, last: 12 },
    ]);
    const lines = new Map([['f', patchSpans(patch)]]);
    expect(spanOf(lines, 'f', 2, 4)).toEqual({ first: 1, last: 4 });
    expect(spanOf(lines, 'f', 4, 11)).toBeNull();
    expect(spanOf(lines, 'f', 6)).toBeNull();
  });
});

describe("the fixer's suggestion", () => {
  const file = (hunks: { oldStart: number; oldCount: number; newStart: number; newCount: number }[]) => ({
    path: 'f',
    oldPath: 'f',
    hunks,
  });
  const next = ['1', '2', 'THREE', 'FOUR', 'four-b', '5', '6'].join('\n');
  it('replaces the blocker lines, widened to the hunks that touch them', () => {
    expect(
      suggestLines(
        file([{ oldStart: 3, oldCount: 2, newStart: 3, newCount: 3 }]),
        next,
        { line: 4, endLine: 4 },
        10,
      ),
    ).toEqual({ line: 3, endLine: 4, text: 'THREE\nFOUR\nfour-b' });
  });
  it('is not offered when the fix did not touch the lines, or changed too much', () => {
    expect(
      suggestLines(
        file([{ oldStart: 6, oldCount: 1, newStart: 7, newCount: 1 }]),
        next,
        { line: 3, endLine: 4 },
        10,
      ),
    ).toBeNull();
    expect(
      suggestLines(
        file([{ oldStart: 3, oldCount: 2, newStart: 3, newCount: 3 }]),
        next,
        { line: 3, endLine: 4 },
        2,
      ),
    ).toBeNull();
  });
  it('accounts for lines inserted above', () => {
    const shifted = ['0', '1', '2', 'THREE', '4'].join('\n');
    expect(
      suggestLines(
        file([
          { oldStart: 0, oldCount: 0, newStart: 1, newCount: 1 },
          { oldStart: 3, oldCount: 1, newStart: 4, newCount: 1 },
        ]),
        shifted,
        { line: 3, endLine: 3 },
        10,
      ),
    ).toEqual({ line: 3, endLine: 3, text: 'THREE' });
  });
});

const finding = (o: Partial<ViewFinding> = {}): ViewFinding => ({
  id: 'f1',
  fingerprint: 'fp',
  round: 1,
  revision: 'a'.repeat(40),
  reviewer: 'r',
  severity: 'MAJOR',
  file: 'src/big.ts',
  line: 1,
  endLine: 1,
  claim: 'a template literal is never closed',
  failureScenario: null,
  violatedClause: null,
  because: null,
  why: null,
  ...o,
});

describe('a suggestion too long for a comment', () => {
  it('is left out, and said so, when a long range gets a one-line fix: no fence is left open', () => {
    // A finding over 3,000 lines; the fixer changed one of them (within the 10-line limit).
    const old = Array.from({ length: 3000 }, (_, i) => `  const value${i} = compute(${i}); // line ${i + 1}`);
    const next = old.map((l, i) => (i === 1499 ? '  const value1499 = computeSafely(1499);' : l)).join('\n');
    const hunks: FileHunks = {
      path: 'src/big.ts',
      oldPath: 'src/big.ts',
      binary: false,
      hunks: [{ oldStart: 1500, oldCount: 1, newStart: 1500, newCount: 1 }],
    };
    const s = suggestLines(hunks, next, { line: 1, endLine: 3000 }, 10);
    expect(s?.text.length).toBeGreaterThan(MAX_BODY);
    const f = finding({ line: 1, endLine: 3000 });
    const body = standingBody(
      f,
      'run1',
      f.revision,
      { findingId: 'f1', line: 1, endLine: 3000, text: s?.text ?? '' },
      'github',
    );
    expect(openFenceAt(body)).toBeNull();
    expect(body).not.toContain('suggestion\n');
    expect(body).toContain("The fixer's version of lines 1-3000 is too long for a suggestion here");
    expect(body.length).toBeLessThanOrEqual(MAX_BODY);
  });

  it('a suggestion that fits is shown whole, in a fence that closes', () => {
    const f = finding();
    const body = standingBody(
      f,
      'run1',
      f.revision,
      { findingId: 'f1', line: 1, endLine: 1, text: 'const a = `x`;' },
      'github',
    );
    expect(body).toContain('```suggestion\nconst a = `x`;\n```');
    expect(openFenceAt(body)).toBeNull();
  });

  it('clipping a body cuts before a fence that would be left open, and notes it outside', () => {
    const fenced = ['intro', '```js', 'x'.repeat(50), '```', 'after'].join('\n');
    const clipped = clipOutsideFences(fenced, 30, '… (truncated)');
    expect(clipped).toBe('intro\n\n… (truncated)');
    expect(openFenceAt(clipped)).toBeNull();
    // Cut past the fence's end: the whole block is kept.
    expect(clipOutsideFences(fenced, fenced.length - 2, '…')).toBe(
      `${fenced.slice(0, fenced.lastIndexOf('\n'))}\n\n…`,
    );
    expect(clipOutsideFences(fenced, fenced.length, '…')).toBe(fenced);
  });
});

describe('a suggestion with more backtick runs than Math.max takes as arguments', () => {
  it('gets a fence longer than any of them; too long for a comment, it is left out and no fence is open', () => {
    const f = finding({ file: 'dist/app.min.js' });
    // A minified line of 150,000 template literals, one of them opened with a run of three.
    const text = `${'`x`;'.repeat(150_000)}\`\`\`y\`\`\`;`;
    expect(fenceFor(text)).toBe('````');
    const body = standingBody(
      f,
      'run1',
      f.revision,
      { findingId: 'f1', line: 1, endLine: 1, text },
      'github',
    );
    expect(body).not.toContain('````suggestion');
    expect(openFenceAt(body)).toBeNull();
    expect(body.length).toBeLessThanOrEqual(MAX_BODY);
  });
});
