import { describe, expect, it } from 'vitest';
import {
  type CheckResult,
  citedChecks,
  evaluateProgress,
  isReRaised,
  type PriorBlocker,
  type ProgressFacts,
  type RaisedFinding,
} from '../../src/core/progress.js';

const check = (name: string, passed: boolean): CheckResult => ({
  name,
  exitCode: passed ? 0 : 1,
  passed,
  tail: '',
  durationMs: 5,
});

const blocker = (over: Partial<PriorBlocker> = {}): PriorBlocker => ({
  id: 'b1',
  reviewer: 'correctness',
  file: 'src/a.ts',
  touchedByFix: true,
  newRange: { start: 10, end: 12 },
  citedChecks: [],
  disputed: false,
  ...over,
});

const raised = (over: Partial<RaisedFinding> = {}): RaisedFinding => ({
  reviewer: 'correctness',
  file: 'src/a.ts',
  line: 10,
  endLine: 12,
  ...over,
});

/** A round with no evidence of any kind; each case adds one. */
const facts = (over: Partial<ProgressFacts> = {}): ProgressFacts => ({
  checksBefore: null,
  checksAfter: null,
  priorBlockers: [],
  raised: [],
  settledSince: [],
  diffLinesBefore: 100,
  diffLinesAfter: 100,
  shrinkRatio: 0.2,
  ...over,
});

describe('invariant 8: progress is defined before the loop', () => {
  it('a round with no evidence is not progress', () => {
    expect(evaluateProgress(facts())).toEqual({
      progress: false,
      checksNowPassing: [],
      fixed: [],
      settled: [],
      shrank: false,
    });
  });

  describe('a failing check now passes', () => {
    it.each([
      ['failing -> passing', [check('unit', false)], [check('unit', true)], ['unit']],
      ['passing -> passing', [check('unit', true)], [check('unit', true)], []],
      ['failing -> failing', [check('unit', false)], [check('unit', false)], []],
      ['passing -> failing', [check('unit', true)], [check('unit', false)], []],
      ['new check that passes (no before)', [], [check('unit', true)], []],
      ['no checks before at all', null, [check('unit', true)], []],
      [
        'only the check that went green counts',
        [check('unit', false), check('lint', false)],
        [check('unit', true), check('lint', false)],
        ['unit'],
      ],
    ] as [string, CheckResult[] | null, CheckResult[], string[]][])('%s', (_n, before, after, passing) => {
      const e = evaluateProgress(facts({ checksBefore: before, checksAfter: after }));
      expect(e.checksNowPassing).toEqual(passing);
      expect(e.progress).toBe(passing.length > 0);
    });
  });

  describe('an accepted blocker fixed with evidence', () => {
    const cases: [string, Partial<PriorBlocker>, RaisedFinding[], CheckResult[] | null, boolean][] = [
      ['touched, not re-raised, no cited checks: fixed', {}, [], null, true],
      ['lines not touched: merely disappeared, not fixed', { touchedByFix: false }, [], null, false],
      ['touched but re-raised on the same lines', {}, [raised()], null, false],
      ['re-raised reworded on overlapping lines', {}, [raised({ line: 11, endLine: 11 })], null, false],
      ['re-raised within the slack above the range', {}, [raised({ line: 5, endLine: 8 })], null, false],
      ['re-raised within the slack below the range', {}, [raised({ line: 14, endLine: 20 })], null, false],
      ['a finding beyond the slack is not a re-raise', {}, [raised({ line: 15, endLine: 20 })], null, true],
      ['same lines, another reviewer: not a re-raise', {}, [raised({ reviewer: 'standards' })], null, true],
      ['same lines, another file: not a re-raise', {}, [raised({ file: 'src/b.ts' })], null, true],
      ['file gone: touched and cannot be re-raised', { newRange: null }, [raised()], null, true],
      ['cited check passes after', { citedChecks: ['unit'] }, [], [check('unit', true)], true],
      ['cited check fails after', { citedChecks: ['unit'] }, [], [check('unit', false)], false],
      ['cited check did not run', { citedChecks: ['unit'] }, [], null, false],
      [
        'one of two cited checks fails',
        { citedChecks: ['unit', 'lint'] },
        [],
        [check('unit', true), check('lint', false)],
        false,
      ],
      ['disputed is not fixed, even when touched', { disputed: true }, [], null, false],
    ];
    it.each(cases)('%s', (_n, over, raisedNow, after, isFixed) => {
      const e = evaluateProgress(
        facts({ priorBlockers: [blocker(over)], raised: raisedNow, checksAfter: after }),
      );
      expect(e.fixed).toEqual(isFixed ? ['b1'] : []);
      expect(e.progress).toBe(isFixed);
    });

    it('a re-raise at a lower severity is still a re-raise: the count falls but it is not progress', () => {
      // RaisedFinding deliberately carries no severity: the driver passes every finding, MINOR included.
      const e = evaluateProgress(
        facts({ priorBlockers: [blocker()], raised: [raised({ line: 12, endLine: 12 })] }),
      );
      expect(e).toMatchObject({ progress: false, fixed: [] });
    });

    it('fixes only those blockers with evidence, among several', () => {
      const e = evaluateProgress(
        facts({
          priorBlockers: [
            blocker({ id: 'fixed' }),
            blocker({ id: 'untouched', touchedByFix: false }),
            blocker({ id: 'reraised', file: 'src/b.ts' }),
            blocker({ id: 'disputed', disputed: true }),
          ],
          raised: [raised({ file: 'src/b.ts' })],
        }),
      );
      expect(e.fixed).toEqual(['fixed']);
    });
  });

  describe('isReRaised', () => {
    it('needs the same reviewer, the same file and overlapping lines (with a slack of two)', () => {
      const b = blocker({ newRange: { start: 20, end: 20 } });
      expect(isReRaised(b, [raised({ line: 22, endLine: 22 })])).toBe(true);
      expect(isReRaised(b, [raised({ line: 18, endLine: 18 })])).toBe(true);
      expect(isReRaised(b, [raised({ line: 23, endLine: 30 })])).toBe(false);
      expect(isReRaised(b, [raised({ line: 1, endLine: 17 })])).toBe(false);
      expect(isReRaised(b, [raised({ line: 1, endLine: 100 })])).toBe(true);
      expect(isReRaised(b, [])).toBe(false);
    });
  });

  it('a disputed blocker settled by a named person counts', () => {
    const e = evaluateProgress(facts({ priorBlockers: [blocker({ disputed: true })], settledSince: ['b1'] }));
    expect(e).toMatchObject({ progress: true, settled: ['b1'], fixed: [] });
  });

  describe('the diff shrink rule, at the ratio boundary', () => {
    const cases: [number, number, number, boolean][] = [
      [100, 80, 0.2, true],
      [100, 81, 0.2, false],
      [100, 0, 0.2, true],
      [100, 120, 0.2, false],
      [0, 0, 0.2, false],
      [10, 5, 0.5, true],
      [10, 6, 0.5, false],
      [10, 7, 0.3, true],
      [10, 8, 0.3, false],
      [10, 2, 0.8, true],
      [10, 3, 0.8, false],
      [10, 1, 0.9, true],
      [100, 10, 0.9, true],
      [100, 11, 0.9, false],
      [10, 0, 1, true],
      [10, 1, 1, false],
    ];
    it.each(cases)('%i -> %i lines with ratio %d: shrank=%s', (before, after, ratio, shrank) => {
      const e = evaluateProgress(
        facts({ diffLinesBefore: before, diffLinesAfter: after, shrinkRatio: ratio }),
      );
      expect(e.shrank).toBe(shrank);
      expect(e.progress).toBe(shrank);
    });

    it('holds exactly at every whole-percent ratio', () => {
      // Floating point must not move the boundary: removing exactly ratio*before lines always counts.
      for (let pct = 1; pct <= 100; pct++) {
        for (const before of [100, 200, 300, 1000, 2500]) {
          const removed = (before * pct) / 100;
          const ratio = pct / 100;
          const at = evaluateProgress(
            facts({ diffLinesBefore: before, diffLinesAfter: before - removed, shrinkRatio: ratio }),
          );
          const short = evaluateProgress(
            facts({ diffLinesBefore: before, diffLinesAfter: before - removed + 1, shrinkRatio: ratio }),
          );
          expect([pct, before, at.shrank, short.shrank]).toEqual([pct, before, true, false]);
        }
      }
    });
  });

  describe('citedChecks', () => {
    it.each([
      ['names a check as a word', 'the unit check fails on empty input', ['unit', 'lint'], ['unit']],
      ['case folded', 'UNIT fails', ['unit'], ['unit']],
      ['not inside another word', 'community is unhappy', ['unit'], []],
      ['not as part of a hyphenated name', 'unit-e2e fails', ['unit'], []],
      ['regex characters in a name are literal', 'run c++ now, not axb', ['c++', 'a.b'], ['c++']],
      ['none named', 'something else', ['unit'], []],
    ] as [string, string, string[], string[]][])('%s', (_n, text, names, expected) => {
      expect(citedChecks(text, names)).toEqual(expected);
    });
  });
});
