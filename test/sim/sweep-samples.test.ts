import { describe, expect, it } from 'vitest';
import { resolveParams, SWEEP_SAMPLES, sweepSamples } from '../../src/sim/index.js';

describe('sim --sweep: U5 n and block', () => {
  const r = sweepSamples(resolveParams('hostile', { trials: 60, falsePositive: 0.3 }));

  it('sweeps n in {1, 3, 5} and block 1..n, each with U5 on', () => {
    const keys = r.points.map((p) => `${p.samples}/${p.block}`);
    expect(keys).toEqual(SWEEP_SAMPLES.flatMap((n) => Array.from({ length: n }, (_, k) => `${n}/${k + 1}`)));
    for (const p of r.points) expect(p.calls).toBeCloseTo(p.reviewCalls + p.refuterCalls, 2);
  });

  it('marks exactly the points no other beats on rounds, shipped and calls, and recommends one by its rule', () => {
    for (const p of r.points) {
      const dominated = r.points.some(
        (q) =>
          q.shipped <= p.shipped &&
          q.meanRounds <= p.meanRounds &&
          q.calls <= p.calls &&
          (q.shipped < p.shipped || q.meanRounds < p.meanRounds || q.calls < p.calls),
      );
      expect(p.onFrontier).toBe(!dominated);
    }
    expect(r.points).toContain(r.recommended);
    expect(r.recommended.onFrontier).toBe(true);
    // The rule: near the fewest shipped (within its interval), then the fewest calls.
    const frontier = r.points.filter((p) => p.onFrontier);
    const best = [...frontier].sort((a, b) => a.shipped - b.shipped || a.calls - b.calls)[0]!;
    expect(r.recommended.shipped).toBeLessThanOrEqual(best.shippedCi[1]);
    for (const p of frontier)
      if (p.shipped <= best.shippedCi[1]) expect(r.recommended.calls).toBeLessThanOrEqual(p.calls);
    expect(r.rule).toMatch(/fewest calls/);
  });

  it('costs more calls as n grows when every sample runs', () => {
    const calls = (n: number) => r.points.find((p) => p.samples === n && p.block === 1)!.reviewCalls;
    expect(calls(1)).toBeLessThan(calls(3));
    expect(calls(3)).toBeLessThan(calls(5));
  });

  it('is deterministic', () => {
    expect(JSON.stringify(sweepSamples(resolveParams('hostile', { trials: 60, falsePositive: 0.3 })))).toBe(
      JSON.stringify(r),
    );
  });
});
