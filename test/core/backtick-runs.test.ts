import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { longestBacktickRun } from '../../src/core/backtick-runs.js';

// What the scan replaced: the longest match of /`+/g (0 when none).
const byRegex = (t: string) => [...t.matchAll(/`+/g)].reduce((n, m) => Math.max(n, m[0].length), 0);

describe('longestBacktickRun', () => {
  it('is the longest run of backticks, wherever it lies', () => {
    expect(longestBacktickRun('')).toBe(0);
    expect(longestBacktickRun('no ticks here')).toBe(0);
    expect(longestBacktickRun('`')).toBe(1);
    expect(longestBacktickRun('a ``` b `` c')).toBe(3);
    expect(longestBacktickRun('x `` y ````')).toBe(4);
    expect(longestBacktickRun('````` at the start')).toBe(5);
  });

  it('agrees with the regex on any text of backticks and others (500 cases)', () => {
    const text = fc.string({ unit: fc.constantFrom('`', '`', 'a', ' ', '\n', 'é', '😀'), maxLength: 200 });
    fc.assert(
      fc.property(text, (t) => longestBacktickRun(t) === byRegex(t)),
      { numRuns: 500 },
    );
  });

  it('takes a text with more runs than Math.max can be handed as arguments', () => {
    expect(longestBacktickRun('` '.repeat(300_000))).toBe(1);
  });
});
