/** Reviewer text is data (issue 18, point 8); markers and diff lines parse exactly. */
import { describe, expect, it } from 'vitest';
import { patchSpans, spanOf } from '../../src/forge/diff-lines.js';
import { findingMarker, parseFindingMarker, parseRunMarker } from '../../src/forge/markers.js';
import { neutralise } from '../../src/forge/neutralise.js';
import { MAX_BODY, standingBody } from '../../src/forge/render.js';
import { suggestLines } from '../../src/forge/suggestion.js';
import type { ViewFinding } from '../../src/forge/types.js';

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

describe('a suggestion with more backtick runs than Math.max takes as arguments', () => {
  it('is rendered in a fence longer than any of them, and the body is clipped after', () => {
    const f: ViewFinding = {
      id: 'f1',
      fingerprint: 'fp',
      round: 1,
      revision: 'a'.repeat(40),
      reviewer: 'r',
      severity: 'MAJOR',
      file: 'dist/app.min.js',
      line: 1,
      endLine: 1,
      claim: 'a template literal is never closed',
      failureScenario: null,
      violatedClause: null,
      because: null,
      why: null,
    };
    // A minified line of 150,000 template literals, one of them opened with a run of three.
    const text = `${'`x`;'.repeat(150_000)}\`\`\`y\`\`\`;`;
    const body = standingBody(
      f,
      'run1',
      f.revision,
      { findingId: 'f1', line: 1, endLine: 1, text },
      'github',
    );
    expect(body).toContain('````suggestion\n');
    expect(body.length).toBeLessThanOrEqual(MAX_BODY + 100);
  });
});
