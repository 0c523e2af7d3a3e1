import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Matcher, matchFindings, type Span } from '../../src/eval/match.js';

/**
 * What any matcher must do, as checks over fixed cases; each returns what went
 * wrong (empty when none). Run against the real matcher and against broken
 * ones, so a matcher that regresses in any of these ways fails this suite.
 */
function violations(m: Matcher): string[] {
  const out: string[] = [];
  const d: Span[] = [{ file: 'a.js', line: 10, endLine: 12 }];
  if (m([{ file: 'a.js', line: 11 }], d, 0).length !== 1) out.push('an overlapping finding did not match');
  if (m([{ file: 'b.js', line: 11 }], d, 3).length !== 0) out.push('a finding on another file matched');
  if (m([{ file: 'a.js', line: 15 }], d, 3).length !== 1)
    out.push('a finding within the window did not match');
  if (m([{ file: 'a.js', line: 16 }], d, 3).length !== 0) out.push('a finding past the window matched');
  if (m([{ file: 'a.js', line: 7 }], d, 3).length !== 1)
    out.push('a finding just before, within the window, did not match');
  if (
    m(
      [
        { file: 'a.js', line: 10 },
        { file: 'a.js', line: 11 },
      ],
      d,
      3,
    ).length !== 1
  )
    out.push('two findings matched one defect');
  const two: Span[] = [
    { file: 'a.js', line: 10 },
    { file: 'a.js', line: 12 },
  ];
  if (m([{ file: 'a.js', line: 11 }], two, 3).length !== 1) out.push('one finding matched two defects');
  // Nearest first: the finding on line 20 belongs to the defect on 20, leaving 12 for the finding on 12.
  const near = m(
    [
      { file: 'a.js', line: 20 },
      { file: 'a.js', line: 12 },
    ],
    [
      { file: 'a.js', line: 18 },
      { file: 'a.js', line: 20 },
    ],
    6,
  );
  if (near.length !== 2) out.push('a greedy first-come matching lost a pair the nearest-first one keeps');
  return out;
}

describe('matching findings to known defects', () => {
  it('the matcher meets every rule', () => {
    expect(violations(matchFindings)).toEqual([]);
  });

  it('a deliberately broken matcher fails these rules (each breakage is caught)', () => {
    const ignoresFile: Matcher = (f, d, w) =>
      matchFindings(
        f.map((x) => ({ ...x, file: 'a.js' })),
        d.map((x) => ({ ...x, file: 'a.js' })),
        w,
      );
    const ignoresWindow: Matcher = (f, d) => matchFindings(f, d, 1000);
    const manyToOne: Matcher = (f, d, w) =>
      f.flatMap((x, fi) => {
        const di = d.findIndex((y) => y.file === x.file && Math.abs(y.line - x.line) <= w + 2);
        return di >= 0 ? [{ finding: fi, defect: di }] : [];
      });
    const startOnly: Matcher = (f, d, w) =>
      matchFindings(
        f,
        d.map((x) => ({ file: x.file, line: x.line })),
        w,
      );
    for (const broken of [ignoresFile, ignoresWindow, manyToOne, startOnly, () => []])
      expect(violations(broken).length).toBeGreaterThan(0);
  });

  it('is one-to-one and only pairs same-file spans within the window (100 random cases)', () => {
    const span = fc.record({
      file: fc.constantFrom('a.js', 'b.js'),
      line: fc.integer({ min: 1, max: 40 }),
      len: fc.integer({ min: 0, max: 4 }),
    });
    const toSpan = (s: { file: string; line: number; len: number }): Span => ({
      file: s.file,
      line: s.line,
      endLine: s.line + s.len,
    });
    fc.assert(
      fc.property(
        fc.array(span, { maxLength: 8 }),
        fc.array(span, { maxLength: 8 }),
        fc.integer({ min: 0, max: 5 }),
        (fs, ds, w) => {
          const f = fs.map(toSpan);
          const d = ds.map(toSpan);
          const m = matchFindings(f, d, w);
          expect(new Set(m.map((x) => x.finding)).size).toBe(m.length);
          expect(new Set(m.map((x) => x.defect)).size).toBe(m.length);
          for (const { finding, defect } of m) {
            const a = f[finding] as Span;
            const b = d[defect] as Span;
            expect(a.file).toBe(b.file);
            expect(
              Math.max(a.line - (b.endLine ?? b.line), b.line - (a.endLine ?? a.line), 0),
            ).toBeLessThanOrEqual(w);
          }
        },
      ),
      { numRuns: 100, seed: 21 },
    );
  });
});
