import { describe, expect, it } from 'vitest';
import { spendDifference, spendOf } from '../../src/eval/spend.js';

const o = { seed: 7, resamples: 400, level: 0.95 };
const cases = (costs: number[], calls: number[]) =>
  costs.map((costUsd, i) => ({ costUsd, calls: calls[i] ?? 0 }));

describe('spend per case', () => {
  it('is the mean with an interval that holds it, and a point interval when every case spends the same', () => {
    const s = spendOf(cases([0.1, 0.2, 0.3, 0.4], [1, 2, 3, 4]), o);
    expect(s.costUsd.mean).toBeCloseTo(0.25, 12);
    expect(s.calls.mean).toBe(2.5);
    expect(s.calls.interval?.low).toBeLessThanOrEqual(2.5);
    expect(s.calls.interval?.high).toBeGreaterThanOrEqual(2.5);
    const flat = spendOf(cases([0.5, 0.5, 0.5], [3, 3, 3]), o);
    expect(flat.calls.interval).toEqual({ low: 3, high: 3 });
  });

  it('is zero with no interval when no case ran', () => {
    expect(spendOf([], o).costUsd).toEqual({ mean: 0, interval: null });
  });

  it('pairs cases: a side that spends exactly 1.5× per case has ratio 1.5 on every resample', () => {
    const a = cases([0.2, 0.4, 0.6, 0.8], [2, 4, 6, 8]);
    const b = cases([0.3, 0.6, 0.9, 1.2], [3, 6, 9, 12]);
    const d = spendDifference(a, b, o);
    expect(d.calls.delta).toBe(2.5);
    expect(d.calls.ratio).toBeCloseTo(1.5, 12);
    expect(d.calls.ratioInterval?.low).toBeCloseTo(1.5, 12);
    expect(d.calls.ratioInterval?.high).toBeCloseTo(1.5, 12);
    expect(d.costUsd.ratio).toBeCloseTo(1.5, 12);
  });

  it('has no ratio against a side that spent nothing', () => {
    const d = spendDifference(cases([0, 0], [0, 0]), cases([0.1, 0.1], [1, 1]), o);
    expect(d.costUsd.ratio).toBeNull();
    expect(d.costUsd.delta).toBeCloseTo(0.1, 12);
  });

  it('refuses unpaired sides', () => {
    expect(() => spendDifference(cases([1], [1]), cases([1, 2], [1, 2]), o)).toThrow(/same cases/);
  });
});
