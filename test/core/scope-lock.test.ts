import { describe, expect, it } from 'vitest';
import {
  gateScope,
  passCandidates,
  type RecordedReview,
  type ScopeFacts,
} from '../../src/core/scope-lock.js';
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

describe('invariant 11: a pass belongs to the reviewer identity that gave it', () => {
  const rec = (over: Partial<RecordedReview>): RecordedReview => ({
    reviewer: 'rust',
    revision: 'h1',
    verdict: 'pass',
    recordedAt: 1,
    identity: 'id-a',
    ...over,
  });
  const current = new Map([['rust', 'id-a']]);

  it('the same name and identity: the pass counts, latest first', () => {
    const got = passCandidates([rec({}), rec({ revision: 'h2', recordedAt: 2 })], current, 'h3');
    expect(got.get('rust')).toEqual(['h2', 'h1']);
  });
  it('the same name, another identity: no pass', () => {
    expect(passCandidates([rec({ identity: 'id-b' })], current, 'h3').size).toBe(0);
  });
  it('a pass recorded before identities were frozen locks nothing', () => {
    expect(passCandidates([rec({ identity: null })], current, 'h3').size).toBe(0);
  });
  it('a reviewer without an identity now (an old snapshot) keeps no pass either', () => {
    expect(passCandidates([rec({})], new Map(), 'h3').size).toBe(0);
  });
  it('the revision under review and a revision a chunk raised on are not passes', () => {
    const got = passCandidates(
      [rec({ revision: 'h3' }), rec({ revision: 'h2' }), rec({ revision: 'h2', verdict: 'findings' })],
      current,
      'h3',
    );
    expect(got.size).toBe(0);
  });
});
