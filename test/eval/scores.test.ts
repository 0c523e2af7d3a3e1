import { describe, expect, it } from 'vitest';
import { intervals, pairedDifference } from '../../src/eval/bootstrap.js';
import type { RanCase } from '../../src/eval/case-result.js';
import { compare, scorecard } from '../../src/eval/scorecard.js';
import { addTally, caseTally, emptyTally, metricsOf, OVERALL, type Tally } from '../../src/eval/scores.js';

const finding = (reviewer: string, blocking = true) => ({
  reviewer,
  severity: 'MAJOR' as const,
  file: 'a.js',
  line: 1,
  claim: 'x',
  refuted: false,
  blocking,
});

function ran(
  id: string,
  defects: number,
  findings: ReturnType<typeof finding>[],
  matches: (number | null)[],
): RanCase {
  return {
    id,
    clean: defects === 0,
    defects: Array.from({ length: defects }, (_, i) => ({
      file: 'a.js',
      line: i + 1,
      description: 'd',
      severity: 'MAJOR' as const,
    })),
    ran: true,
    runId: `r-${id}`,
    outcome: findings.length ? 'findings' : 'clear',
    stopReason: null,
    reviewers: ['a', 'b'],
    findings,
    rounds: 1,
    costUsd: 0.01,
    calls: 2,
    seconds: 1,
    matches,
  };
}

describe('scores', () => {
  it('recall, precision, F1 and false-positive rate per reviewer and overall', () => {
    const cases = [
      // a finds defect 0, b finds it too and raises one wrong finding
      ran('one', 2, [finding('a'), finding('b'), finding('b')], [0, 0, null]),
      // a clean case where b blocks: a false positive for b and overall, not for a
      ran('clean', 0, [finding('b')], [null]),
      ran('clean2', 0, [], []),
    ];
    const card = scorecard(cases, { label: 't', mode: 'review', window: 3, applied: '' });
    const by = Object.fromEntries(card.reviewers.map((r) => [r.reviewer, r.metrics]));
    expect(by.a).toEqual({ recall: 0.5, precision: 1, f1: 2 / 3, falsePositiveRate: 0 });
    expect(by.b?.recall).toBe(0.5);
    expect(by.b?.precision).toBe(1 / 3);
    expect(by.b?.falsePositiveRate).toBe(0.5);
    // Overall a defect found by two reviewers counts once; every finding counts.
    expect(by[OVERALL]).toMatchObject({ recall: 0.5, precision: 2 / 4, falsePositiveRate: 0.5 });
    expect(card.totals).toMatchObject({ cases: 3, ran: 3, notRun: 0, rounds: 3 });
    expect(card.complete).toBe(true);
  });

  it('a case that could not run is listed and not scored; the card says incomplete', () => {
    const cases = [
      ran('one', 1, [finding('a')], [0]),
      {
        id: 'gone',
        clean: false,
        defects: [],
        ran: false as const,
        field: 'head',
        error: 'case gone: head: missing',
      },
    ];
    const card = scorecard(cases, { label: 't', mode: 'review', window: 3, applied: '' });
    expect(card.complete).toBe(false);
    expect(card.totals).toMatchObject({ cases: 2, ran: 1, notRun: 1 });
    expect(card.reviewers.find((r) => r.reviewer === OVERALL)?.tally.defects).toBe(1);
  });

  it('a non-blocking finding on a clean case is not a false positive (it still costs precision)', () => {
    const t = caseTally(ran('c', 0, [finding('a', false)], [null]), 'a');
    expect(t).toMatchObject({ falsePositiveCases: 0, findings: 1, matchedFindings: 0 });
  });
});

describe('bootstrap', () => {
  const tallies: Tally[] = Array.from({ length: 30 }, (_, i) => ({
    defects: 2,
    matchedDefects: i % 3 === 0 ? 2 : i % 3,
    findings: 3,
    matchedFindings: i % 3 === 0 ? 2 : i % 3,
    clean: 0,
    falsePositiveCases: 0,
    refuted: 0,
  }));

  it('is seeded: the same seed gives the same intervals, another seed others', () => {
    const o = { seed: 7, resamples: 300, level: 0.95 };
    expect(intervals(tallies, o)).toEqual(intervals(tallies, o));
    const seeds = [8, 9, 10, 11, 12].map((seed) => JSON.stringify(intervals(tallies, { ...o, seed })));
    expect(new Set(seeds).size).toBeGreaterThan(1);
  });

  it('the interval holds the point estimate; an undefined metric has none', () => {
    const iv = intervals(tallies, { seed: 1, resamples: 300, level: 0.95 });
    const m = metricsOf(tallies.reduce(addTally, emptyTally()));
    expect(iv.recall?.low).toBeLessThanOrEqual(m.recall as number);
    expect(iv.recall?.high).toBeGreaterThanOrEqual(m.recall as number);
    expect(iv.falsePositiveRate).toBeNull();
  });

  it('a paired difference: none between a configuration and itself, a significant one against a far better one', () => {
    const o = { seed: 3, resamples: 500, level: 0.95 };
    const same = pairedDifference(tallies, tallies, o);
    expect(same.recall).toMatchObject({ delta: 0, significant: false });
    const better = tallies.map((t) => ({ ...t, matchedDefects: 2, matchedFindings: 2 }));
    const d = pairedDifference(tallies, better, o);
    expect(d.recall.delta).toBeGreaterThan(0);
    expect(d.recall.significant).toBe(true);
    expect(d.recall.p).toBeLessThan(0.05);
  });

  it('compare pairs cases by id and only those that ran on both sides', () => {
    const a = scorecard([ran('x', 1, [finding('a')], [0]), ran('y', 1, [], [])], {
      label: 'a',
      mode: 'review',
      window: 3,
      applied: '',
    });
    const b = scorecard([ran('y', 1, [finding('a')], [0])], {
      label: 'b',
      mode: 'review',
      window: 3,
      applied: '',
    });
    expect(compare(a, b).pairedCases).toBe(1);
    expect(compare(a, b).overall.recall.delta).toBe(1);
  });
});
