import { describe, expect, it } from 'vitest';
import { clauseInCriteria, gateScenario, hasConcreteScenario } from '../../src/core/gating.js';
import type { ReportedFinding, Severity } from '../../src/core/types.js';

const CRITERIA = [
  '# Review rules',
  '- R2: retries are bounded and jittered',
  '- R21: logs never carry secrets',
  '2.1 Money is kept in integer cents',
  '> 3) Every public function validates its input',
].join('\n');

const finding = (over: Partial<ReportedFinding> = {}): ReportedFinding => ({
  severity: 'MAJOR',
  file: 'src/a.ts',
  line: 10,
  claim: 'total is wrong',
  ...over,
});

describe('invariant 9: blockers need a scenario', () => {
  describe('hasConcreteScenario', () => {
    it.each([
      ['an input and a wrong outcome', 'when the cart is empty, total() returns NaN instead of 0', true],
      ['a state and a wrong outcome', 'two workers claim run 7 at once and both write its record', true],
      ['exactly four words', 'empty cart returns NaN', true],
      ['missing', undefined, false],
      ['empty', '', false],
      ['whitespace only', '   \n\t ', false],
      ['too short (three words)', 'total returns NaN', false],
      ['too short once whitespace is folded', '  total \n\n returns   NaN ', false],
      ['stock phrase', 'this could be a problem', false],
      ['stock phrase, case and spacing folded', '  This   could be A problem ', false],
      ['stock phrase with a full stop', 'This could be a problem.', false],
      ['stock phrase followed by more sentences', 'This could be a problem. Please check.', false],
      ['stock phrase with a subject', 'This could cause issues.', false],
      ['stock phrase with another subject', 'It may cause problems.', false],
      ['stock phrase with an exclamation', 'This might be a problem!', false],
      ['n/a', 'N/A', false],
      ['none', 'None', false],
    ])('%s', (_name, scenario, expected) => {
      expect(hasConcreteScenario(scenario)).toBe(expected);
    });

    it('does not mistake a sentence that merely starts with a stock word for a stock phrase', () => {
      expect(hasConcreteScenario('none of the three callers checks the returned error')).toBe(true);
    });
  });

  describe('clauseInCriteria', () => {
    it.each([
      ['identifier R2', 'R2', true],
      ['identifier case folded', 'r2', true],
      ['identifier with its colon', 'R2:', true],
      ['longer identifier R21', 'R21', true],
      ['numbered section 2.1', '2.1', true],
      ['identifier after a quote marker and closing parenthesis', '3', true],
      ['identifier not in the criteria', 'R3', false],
      ['a prefix of an identifier is not that identifier', 'R', false],
      ['clause text quoted exactly', 'retries are bounded and jittered', true],
      ['clause text with case and spacing folded', '  Retries ARE  bounded\nand jittered ', true],
      ['clause text with its identifier', 'R2: retries are bounded and jittered', true],
      ['clause text not in the criteria', 'functions are shorter than forty lines', false],
      ['short text that is not an identifier', 'cents', false],
      ['missing', undefined, false],
      ['empty', '', false],
      ['whitespace only', '   ', false],
    ])('%s', (_name, clause, expected) => {
      expect(clauseInCriteria(clause, CRITERIA)).toBe(expected);
    });
  });

  describe('gateScenario', () => {
    const concrete = 'when the cart is empty, total() returns NaN instead of 0';
    const cases: [string, Partial<ReportedFinding>, boolean, 'kept' | 'demoted'][] = [
      ['MAJOR with a concrete scenario', { failureScenario: concrete }, true, 'kept'],
      [
        'MODERATE with a concrete scenario',
        { severity: 'MODERATE', failureScenario: concrete },
        true,
        'kept',
      ],
      ['MAJOR with a vague scenario', { failureScenario: 'This could be a problem.' }, true, 'demoted'],
      ['MAJOR with a too-short scenario', { failureScenario: 'returns NaN' }, true, 'demoted'],
      ['MAJOR with neither', {}, true, 'demoted'],
      ['MODERATE with neither', { severity: 'MODERATE' }, true, 'demoted'],
      [
        'vague scenario but a clause in the criteria by id',
        { failureScenario: 'n/a', violatedClause: 'R2' },
        true,
        'kept',
      ],
      [
        'a clause in the criteria by text',
        { violatedClause: 'Money is kept in integer cents' },
        true,
        'kept',
      ],
      ['a clause not in the criteria', { violatedClause: 'R9' }, true, 'demoted'],
      ['an invented clause text', { violatedClause: 'all code must be perfect always' }, true, 'demoted'],
      ['MINOR with neither is untouched', { severity: 'MINOR' }, true, 'kept'],
      ['requireScenario off keeps a bare MAJOR', {}, false, 'kept'],
      [
        'requireScenario off keeps a vague MODERATE',
        { severity: 'MODERATE', failureScenario: 'none' },
        false,
        'kept',
      ],
    ];
    it.each(cases)('%s', (_name, over, requireScenario, kind) => {
      const f = finding(over);
      const gate = gateScenario(f, CRITERIA, requireScenario);
      expect(gate.kind).toBe(kind);
      if (kind === 'demoted')
        expect(gate).toEqual({ kind: 'demoted', rule: 'no_scenario', from: f.severity });
    });

    it('records the severity it demoted from', () => {
      for (const severity of ['MAJOR', 'MODERATE'] as Severity[]) {
        expect(gateScenario(finding({ severity }), CRITERIA, true)).toEqual({
          kind: 'demoted',
          rule: 'no_scenario',
          from: severity,
        });
      }
    });
  });
});

describe('invariant 9: a clause must really be in the criteria', () => {
  const criteria =
    '# Rules\nR1. Concurrency: no read-modify-write across an await.\nAll errors are handled.\n2.1 Logs carry no secrets.\n';
  it.each([
    ['R1', true],
    ['R1. Concurrency', true],
    ['2.1', true],
    ['no read-modify-write across an await', true],
    ['all', false],
    ['2', false],
    ['logs carry', false],
    ['R9', false],
  ])('%s -> %s', (clause, expected) => {
    expect(clauseInCriteria(clause, criteria)).toBe(expected);
  });
});
