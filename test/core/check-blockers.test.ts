import { describe, expect, it } from 'vitest';
import { brokenChecks } from '../../src/core/check-blockers.js';
import type { ChecksResult } from '../../src/core/stage-results.js';

const results = (rs: [string, boolean][]) =>
  rs.map(([name, passed]) => ({ name, exitCode: passed ? 0 : 1, passed, tail: '', durationMs: 1 }));
const at = (head: string, ...rs: [string, boolean][]): ChecksResult => ({ head, results: results(rs) });
/** Round 0's checks, with those that failed there run once more at the base. */
const admitted = (head: string, rs: [string, boolean][], base: [string, boolean][]): ChecksResult => ({
  ...at(head, ...rs),
  base: { commit: 'b0', results: results(base) },
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

describe('a check that passed at the base and fails now is broken too', () => {
  it("the change's first revision breaks a check that passed at the base: broken, at the base", () => {
    expect(brokenChecks([admitted('h0', [['unit', false]], [['unit', true]])], 'h0')).toEqual([
      { name: 'unit', exitCode: 1, passedAt: 'b0', atBase: true },
    ]);
  });
  it('still failing after a fix that did not repair it: broken, at the base', () => {
    const runs = [admitted('h0', [['unit', false]], [['unit', true]]), at('h1', ['unit', false])];
    expect(brokenChecks(runs, 'h1')).toEqual([{ name: 'unit', exitCode: 1, passedAt: 'b0', atBase: true }]);
  });
  it('a later revision of the run it passed on is named before the base', () => {
    const runs = [
      admitted('h0', [['unit', false]], [['unit', true]]),
      at('h1', ['unit', true]),
      at('h2', ['unit', false]),
    ];
    expect(brokenChecks(runs, 'h2')).toEqual([{ name: 'unit', exitCode: 1, passedAt: 'h1' }]);
  });
  it('failing at the base too: pre-existing, not broken', () => {
    expect(brokenChecks([admitted('h0', [['unit', false]], [['unit', false]])], 'h0')).toEqual([]);
    const runs = [admitted('h0', [['unit', false]], [['unit', false]]), at('h1', ['unit', false])];
    expect(brokenChecks(runs, 'h1')).toEqual([]);
  });
  it('passing now: nothing, whatever the base said', () => {
    const runs = [admitted('h0', [['unit', false]], [['unit', true]]), at('h1', ['unit', true])];
    expect(brokenChecks(runs, 'h1')).toEqual([]);
  });
  it('each check on its own against the base', () => {
    const runs = [
      admitted(
        'h0',
        [
          ['unit', false],
          ['lint', false],
        ],
        [
          ['unit', true],
          ['lint', false],
        ],
      ),
    ];
    expect(brokenChecks(runs, 'h0').map((b) => b.name)).toEqual(['unit']);
  });
});
