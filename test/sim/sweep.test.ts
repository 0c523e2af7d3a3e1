import { describe, expect, it } from 'vitest';
import { resolveParams, sweep } from '../../src/sim/index.js';
import { revloop } from './cli-support.js';

describe('sim --sweep', () => {
  const r = sweep(resolveParams('hostile', { trials: 100 }));

  it('sweeps 50 policies: stopWindow x shrinkRatio x upgrades on or off', () => {
    expect(r.points).toHaveLength(50);
    const keys = new Set(r.points.map((p) => `${p.stopWindow}/${p.shrinkRatio}/${p.upgrades.join('+')}`));
    expect(keys.size).toBe(50);
  });

  it('marks exactly the non-dominated points as the frontier and recommends one of them', () => {
    for (const p of r.points) {
      const dominated = r.points.some(
        (q) =>
          q.shipped <= p.shipped &&
          q.meanRounds <= p.meanRounds &&
          (q.shipped < p.shipped || q.meanRounds < p.meanRounds),
      );
      expect(p.onFrontier).toBe(!dominated);
    }
    expect(r.recommended.onFrontier).toBe(true);
    expect(r.confidence.length).toBeGreaterThan(0);
    expect(r.separated).toBe(
      r.runnerUp !== null &&
        (r.recommended.shippedCi[1] < r.runnerUp.shippedCi[0] ||
          r.runnerUp.shippedCi[1] < r.recommended.shippedCi[0]),
    );
  });

  it('is deterministic, and the CLI prints the same', () => {
    expect(JSON.stringify(sweep(resolveParams('hostile', { trials: 100 })))).toBe(JSON.stringify(r));
    const cli = revloop(['sim', '--sweep', '--preset', 'hostile', '--trials', '100', '--json'], {});
    expect(cli.status).toBe(0);
    expect(JSON.parse(cli.stdout).sweep).toEqual(JSON.parse(JSON.stringify(r)));
  });
});
