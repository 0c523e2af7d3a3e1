import { describe, expect, it } from 'vitest';
import { brokenChecks } from '../../src/core/check-blockers.js';
import type { ChecksResult } from '../../src/core/stage-results.js';

const at = (head: string, ...results: [string, boolean][]): ChecksResult => ({
  head,
  results: results.map(([name, passed]) => ({
    name,
    exitCode: passed ? 0 : 1,
    passed,
    tail: '',
    durationMs: 1,
  })),
});

describe('a failing check never ends clear', () => {
  it('passed on the change as admitted, fails after the fix: broken', () => {
    expect(brokenChecks([at('h0', ['unit', true]), at('h1', ['unit', false])], 'h1')).toEqual([
      { name: 'unit', exitCode: 1, passedAt: 'h0' },
    ]);
  });
  it('passed on any earlier revision counts, the latest is named', () => {
    const runs = [at('h0', ['unit', true]), at('h1', ['unit', true]), at('h2', ['unit', false])];
    expect(brokenChecks(runs, 'h2').map((b) => b.passedAt)).toEqual(['h1']);
  });
  it('never passed in the run: evidence only, not a blocker', () => {
    expect(brokenChecks([at('h0', ['unit', false]), at('h1', ['unit', false])], 'h1')).toEqual([]);
  });
  it('passing now, or no checks at the revision under review: nothing', () => {
    expect(brokenChecks([at('h0', ['unit', false]), at('h1', ['unit', true])], 'h1')).toEqual([]);
    expect(brokenChecks([at('h0', ['unit', true])], 'h1')).toEqual([]);
  });
  it('each check on its own', () => {
    const runs = [at('h0', ['unit', true], ['lint', false]), at('h1', ['unit', false], ['lint', false])];
    expect(brokenChecks(runs, 'h1').map((b) => b.name)).toEqual(['unit']);
  });
});
