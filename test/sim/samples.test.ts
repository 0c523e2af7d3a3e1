import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type RevloopError, UsageError } from '../../src/core/errors.js';
import { resolveParams, runTrial, type SimParams, simulate, wilson } from '../../src/sim/index.js';

/** One review round of false positives only: what U5's threshold lets block, per reviewer. */
function falseBlockerRate(p: SimParams): { hits: number; draws: number } {
  let hits = 0;
  for (let t = 0; t < p.trials; t++) hits += runTrial(p, { upgrades: p.upgrades }, t).outcome.blocking[0]!;
  return { hits, draws: p.trials * p.reviewers };
}

describe('U5 repeat sampling', () => {
  const oneRound = (overrides: Parameters<typeof resolveParams>[1]) =>
    resolveParams(null, {
      defects: 0,
      inflation: 0,
      falsePositive: 0.3,
      // 30,000 reviewer draws: the 95 % interval is about +-0.005 around the rate.
      trials: 10_000,
      maxRounds: 1,
      cap: 1,
      upgrades: 'U5',
      ...overrides,
    });

  it('block 2 of 3 lowers false blockers from p to the binomial 3p^2 - 2p^3, within the 95 % interval', () => {
    const single = falseBlockerRate(oneRound({ samples: 1, block: 1 }));
    const twoOfThree = falseBlockerRate(oneRound({ samples: 3, block: 2 }));
    const p = 0.3;
    const [lo1, hi1] = wilson(single.hits, single.draws);
    expect(lo1 <= p && p <= hi1).toBe(true);
    const expected = 3 * p * p - 2 * p ** 3; // P(Binomial(3, p) >= 2) = 0.216
    const [lo, hi] = wilson(twoOfThree.hits, twoOfThree.draws);
    expect(lo <= expected && expected <= hi).toBe(true);
    expect(hi).toBeLessThan(lo1);
  });

  it('a finding below the threshold goes to the refuter when U2 is on, and blocks nothing without it', () => {
    // One defect every reviewer can see, one sample in three sees it: almost always a lone finding.
    const base = { defects: 1, detection: 1, falsePositive: 0, sampleDetection: 0.2, samples: 3, block: 3 };
    const without = simulate(oneRound({ ...base, upgrades: 'U5', refuterAccuracy: 1 }));
    const withU2 = simulate(oneRound({ ...base, upgrades: 'U2,U5', refuterAccuracy: 1 }));
    expect(without.config.perRound[0]).toBeLessThan(0.05);
    expect(withU2.config.perRound[0]).toBeGreaterThan(1);
    expect(withU2.config.refuterCalls).toBeGreaterThan(1);
  });

  it('counts n calls per reviewer per round, or 1 + (n - 1) only after a first sample that raised something', () => {
    const all = simulate(oneRound({ samples: 5, block: 3, falsePositive: 0.1 }));
    expect(all.config.reviewCalls).toBe(3 * 5);
    const lazy = simulate(oneRound({ samples: 5, block: 3, falsePositive: 0.1, sampleOn: 'blockers' }));
    // The first sample raises the false claim with 0.1: expected calls per reviewer 1 + 4 x 0.1.
    const perReviewer = lazy.config.reviewCalls / 3;
    expect(perReviewer).toBeGreaterThan(1.3);
    expect(perReviewer).toBeLessThan(1.5);
  });

  it('without U5 every side draws exactly as before (the sample draws have their own lane)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0xffffffff }), (seed) => {
        const a = simulate(resolveParams('hostile', { seed, trials: 40 }));
        const b = simulate(
          resolveParams('hostile', { seed, trials: 40, samples: 5, block: 4, sampleDetection: 0.1 }),
        );
        expect(b.config).toEqual(a.config);
      }),
      { numRuns: 10, seed: 1 },
    );
  });
});

describe('U6 refutation memory', () => {
  it('lowers refuter calls when false positives recur, and reports the hit rate', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0xffffffff }), (seed) => {
        // Fixes that never stick keep every trial running to the horizon, so both sides review 8 rounds.
        const common = {
          seed,
          trials: 60,
          fixSuccess: 0,
          oscillation: 0,
          falsePositive: 0.4,
          recurrence: 0.9,
          refuterAccuracy: 0.9,
          maxRounds: 8,
          cap: 8,
        };
        const u2 = simulate(resolveParams(null, { ...common, upgrades: 'U1,U2,U3' })).config;
        const u6 = simulate(resolveParams(null, { ...common, upgrades: 'U1,U2,U3,U6' })).config;
        expect(u2.meanRounds).toBe(8);
        expect(u6.meanRounds).toBe(8);
        expect(u6.refuterCalls).toBeLessThan(u2.refuterCalls);
        expect(u6.memoryHits).toBeGreaterThan(0);
        expect(u6.memoryHitPct).toBe(
          Number(((100 * u6.memoryHits) / (u6.memoryHits + u6.refuterCalls)).toFixed(1)),
        );
        expect(u2.memoryHits).toBe(0);
        expect(u2.memoryHitPct).toBe(0);
      }),
      { numRuns: 5, seed: 1 },
    );
  });

  it('forgets a refutation once a rework edits its region', () => {
    // One region, a defect every reviewer sees and no fix ever sticks: every round's rework edits the
    // region the remembered false claims sit on, so each round asks the refuter again.
    const p = resolveParams(null, {
      regions: 1,
      defects: 1,
      detection: 1,
      fixSuccess: 0,
      falsePositive: 1,
      recurrence: 1,
      inflation: 0,
      oscillation: 0,
      refuterAccuracy: 1,
      maxRounds: 5,
      cap: 5,
      trials: 1,
      upgrades: 'U2,U6',
    });
    const o = runTrial(p, { upgrades: p.upgrades }, 0).outcome;
    expect(o.rounds).toBe(5);
    expect(o.memoryHits).toBe(0);
    expect(o.refuterCalls).toBe(5 * 2 * p.reviewers);
  });

  it('remembers a refuted claim while its region is unchanged', () => {
    // No defect, so nothing is reworked: a claim refuted once is not judged again.
    const p = resolveParams(null, {
      defects: 0,
      falsePositive: 1,
      recurrence: 1,
      inflation: 0,
      oscillation: 0,
      refuterAccuracy: 0.5,
      maxRounds: 6,
      cap: 6,
      trials: 30,
      upgrades: 'U2,U6',
    });
    for (let t = 0; t < p.trials; t++) {
      const o = runTrial(p, { upgrades: p.upgrades }, t).outcome;
      // A claim that blocked is reworked (its region edited) and judged again; a refuted one never is.
      expect(o.refuterCalls + o.memoryHits).toBe(o.rounds * p.reviewers);
    }
  });
});

describe('U5 and U6 parameters', () => {
  const bad: [string, Parameters<typeof resolveParams>[1]][] = [
    ['--samples', { samples: '0' }],
    ['--samples', { samples: '16' }],
    ['--block', { samples: '3', block: '4' }],
    ['--block', { block: '0' }],
    ['--sample-detection', { sampleDetection: '1.1' }],
    ['--sample-on', { sampleOn: 'sometimes' }],
    ['--recurrence', { recurrence: '-0.2' }],
  ];
  it.each(bad)('rejects a bad %s with a one-line UsageError naming the flag', (flag, overrides) => {
    let caught: unknown;
    try {
      resolveParams(null, overrides);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(UsageError);
    expect((caught as RevloopError).code).toBe('usage');
    expect((caught as Error).message.startsWith(`${flag}:`)).toBe(true);
    expect((caught as Error).message).not.toContain('\n');
  });

  it('keeps U1-U4 as the default and lowers the default threshold with a smaller n', () => {
    expect(resolveParams().upgrades).toEqual(['U1', 'U2', 'U3', 'U4']);
    expect(resolveParams(null, { samples: 1 }).block).toBe(1);
    expect(resolveParams(null, { upgrades: 'u6,U5' }).upgrades).toEqual(['U5', 'U6']);
  });
});

describe('U5 and U6 keep the model whole', () => {
  const prob = fc.double({ min: 0, max: 1, noNaN: true });
  it('every genuine finding ends fixed or shipped, and the state stays bounded, for any U5/U6 setting', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 0xffffffff }),
        fc.subarray(['U1', 'U2', 'U3', 'U4', 'U5', 'U6'] as const),
        fc.integer({ min: 1, max: 5 }),
        fc.integer({ min: 1, max: 5 }),
        fc.record({
          sampleDetection: prob,
          falsePositive: prob,
          recurrence: prob,
          inflation: prob,
          oscillation: prob,
        }),
        fc.constantFrom<'all' | 'blockers'>('all', 'blockers'),
        (seed, upgrades, samples, k, env, sampleOn) => {
          const p: SimParams = {
            ...resolveParams(null, { seed, maxRounds: 12, regions: 8, defects: 3 }),
            ...env,
            samples,
            block: Math.min(k, samples),
            sampleOn,
            upgrades: [...upgrades],
          };
          const run = runTrial(p, { upgrades: p.upgrades, capAt: p.cap }, seed % 37);
          for (const o of [run.outcome, run.capped!]) {
            expect(o.defectsFixed + o.shippedDefects).toBe(p.defects);
            expect(o.conflictsFixed + o.shippedConflicts).toBe(o.conflictsBorn);
            expect(o.reviewCalls).toBeLessThanOrEqual(
              o.rounds * p.reviewers * (upgrades.includes('U5') ? samples : 1),
            );
            expect(o.reviewCalls).toBeGreaterThanOrEqual(o.rounds * p.reviewers);
            if (!upgrades.includes('U2')) expect(o.refuterCalls + o.memoryHits).toBe(0);
            if (!upgrades.includes('U6')) expect(o.memoryHits).toBe(0);
            for (const b of o.blocking)
              expect(b).toBeLessThanOrEqual(p.reviewers * (p.defects + 2 + p.regions));
          }
        },
      ),
      { numRuns: 150, seed: 1 },
    );
  });
});

describe('U5 in the round log', () => {
  it('carries reproduction { seen, of } on every finding, seen within 1..of', () => {
    // With on: blockers a reviewer whose first sample raised nothing reports nothing, so every finding ran all three.
    const p = resolveParams('oscillating', {
      upgrades: 'U1,U2,U3,U4,U5',
      samples: 3,
      block: 2,
      seed: 4,
      sampleOn: 'blockers',
    });
    let conflicts = 0;
    for (let t = 0; t < 40; t++) {
      runTrial(
        p,
        {
          upgrades: p.upgrades,
          onRound: (r) => {
            for (const f of r.findings()) {
              expect(f.reproduction!.of).toBe(3);
              expect(f.reproduction!.seen).toBeGreaterThanOrEqual(1);
              expect(f.reproduction!.seen).toBeLessThanOrEqual(3);
              if (r.round > 1 && f.severity === 'MODERATE' && f.reproduction!.seen === 3) conflicts++;
            }
          },
        },
        t,
      );
    }
    expect(conflicts).toBeGreaterThan(0);
  });

  it('leaves reproduction off the findings of single calls', () => {
    const p = resolveParams('hostile', {});
    runTrial(
      p,
      { upgrades: p.upgrades, onRound: (r) => expect(r.findings().every((f) => !f.reproduction)).toBe(true) },
      0,
    );
  });
});
