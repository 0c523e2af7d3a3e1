import { describe, expect, it } from 'vitest';
import { gateScope, type ScopeFacts } from '../../src/core/scope-lock.js';
import type { ReportedFinding } from '../../src/core/types.js';

const finding = (over: Partial<ReportedFinding> = {}): ReportedFinding => ({
  severity: 'MAJOR',
  file: 'src/a.ts',
  line: 10,
  claim: 'total is wrong',
  failureScenario: 'when the cart is empty, total() returns NaN',
  ...over,
});

const PASSED = 'a1b2c3d4';
const neverPassed: ScopeFacts = { passedAt: null, touchedSincePass: false };
const untouched: ScopeFacts = { passedAt: PASSED, touchedSincePass: false };
const touched: ScopeFacts = { passedAt: PASSED, touchedSincePass: true };

describe('invariant 11: scope lock', () => {
  const cases: [string, Partial<ReportedFinding>, ScopeFacts, boolean, 'kept' | 'demoted'][] = [
    ['no earlier pass: kept', {}, neverPassed, true, 'kept'],
    [
      'no earlier pass, unchanged line, no missedBecause: kept',
      { severity: 'MODERATE' },
      neverPassed,
      true,
      'kept',
    ],
    ['lines changed since the pass: kept', {}, touched, true, 'kept'],
    ['unchanged line, no missedBecause: demoted', {}, untouched, true, 'demoted'],
    ['MODERATE on an unchanged line: demoted', { severity: 'MODERATE' }, untouched, true, 'demoted'],
    ['unchanged line, empty missedBecause: demoted', { missedBecause: '' }, untouched, true, 'demoted'],
    ['unchanged line, blank missedBecause: demoted', { missedBecause: '   \n ' }, untouched, true, 'demoted'],
    [
      'unchanged line, two-word missedBecause: demoted',
      { missedBecause: 'missed it' },
      untouched,
      true,
      'demoted',
    ],
    [
      'unchanged line, a real missedBecause: kept',
      { missedBecause: 'the earlier pass did not read the retry loop in b.ts' },
      untouched,
      true,
      'kept',
    ],
    ['MINOR on an unchanged line: untouched', { severity: 'MINOR' }, untouched, true, 'kept'],
    ['scopeLock off: kept', {}, untouched, false, 'kept'],
  ];

  it.each(cases)('%s', (_name, over, facts, scopeLock, kind) => {
    const f = finding(over);
    const gate = gateScope(f, facts, scopeLock);
    expect(gate.kind).toBe(kind);
    if (kind === 'demoted')
      expect(gate).toEqual({ kind: 'demoted', rule: 'scope_lock', from: f.severity, passedAt: PASSED });
  });
});
