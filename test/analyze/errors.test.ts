import { describe, expect, it } from 'vitest';
import { analyzeRoundLog, jsonPath, parseRoundLogText, RoundLogError } from '../../src/analyze/index.js';
import { UsageError } from '../../src/core/errors.js';

const ok = { reviewer: 'a', severity: 'MAJOR', overturned: false };

function errorOf(fn: () => unknown): RoundLogError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(RoundLogError);
    expect(err).toBeInstanceOf(UsageError);
    return err as RoundLogError;
  }
  throw new Error('expected a RoundLogError');
}

describe('analyze: a bad document names the JSON path of the first bad field', () => {
  const cases: [string, unknown, string][] = [
    [
      'a bad severity',
      { rounds: [{ findings: [ok] }, { findings: [] }, { findings: [{ ...ok, severity: 'BLOCKER' }] }] },
      '$.rounds[2].findings[0].severity: expected one of MAJOR, MODERATE, MINOR',
    ],
    ['no rounds field', {}, '$.rounds: expected array, got nothing (the field is missing)'],
    ['rounds not an array', { rounds: { findings: [] } }, '$.rounds: expected array, got an object'],
    ['a document that is not an object', [1], '$: expected object, got an array'],
    ['null', null, '$: expected object, got null'],
    [
      'a round without findings',
      { rounds: [{}] },
      '$.rounds[0].findings: expected array, got nothing (the field is missing)',
    ],
    [
      'overturned as a string',
      { rounds: [{ findings: [{ ...ok, overturned: 'yes' }] }] },
      '$.rounds[0].findings[0].overturned: expected boolean, got string "yes"',
    ],
    [
      'a missing reviewer',
      { rounds: [{ findings: [ok, { severity: 'MINOR', overturned: true }] }] },
      '$.rounds[0].findings[1].reviewer: expected string, got nothing (the field is missing)',
    ],
    [
      'an empty reviewer',
      { rounds: [{ findings: [{ ...ok, reviewer: '' }] }] },
      '$.rounds[0].findings[0].reviewer: expected a non-empty string',
    ],
    [
      'the first of several bad fields',
      { rounds: [{ findings: [{ reviewer: 7, severity: 'minor', overturned: 0 }] }] },
      '$.rounds[0].findings[0].reviewer: expected string, got number 7',
    ],
  ];
  it.each(cases)('%s', (_name, doc, message) => {
    const err = errorOf(() => analyzeRoundLog(doc));
    expect(err.message).toBe(message);
    expect(err.code).toBe('usage');
    expect(err.path).toBe(message.slice(0, message.indexOf(':')));
  });

  it('reports text that is not JSON at $', () => {
    const err = errorOf(() => parseRoundLogText('{ "rounds": ['));
    expect(err.path).toBe('$');
    expect(err.message).toMatch(/^\$: not valid JSON/);
  });

  it('writes paths in JSONPath notation, quoting keys that are not identifiers', () => {
    expect(jsonPath([])).toBe('$');
    expect(jsonPath(['rounds', 0, 'findings', 12, 'severity'])).toBe('$.rounds[0].findings[12].severity');
    expect(jsonPath(['a b', 'c-d'])).toBe('$["a b"]["c-d"]');
  });
});
