import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PRESET_NAMES, resolveParams, runTrial, type SimParams, simulate } from '../../src/sim/index.js';

const seedArb = fc.integer({ min: 0, max: 0xffffffff });
const prob = fc.double({ min: 0, max: 1, noNaN: true });
const presetArb = fc.constantFrom<(typeof PRESET_NAMES)[number] | null>(null, ...PRESET_NAMES);

describe('simulate: the properties the issue asks for', () => {
  it('U4 never fires in the healthy preset, whatever the seed and upgrades', () => {
    fc.assert(
      fc.property(seedArb, fc.subarray(['U1', 'U2', 'U3'] as const), (seed, extra) => {
        const r = simulate(resolveParams('healthy', { seed, upgrades: [...extra, 'U4'] }));
        expect(r.config.escalatedPct).toBe(0);
        expect(r.config.convergedPct).toBe(100);
      }),
      { numRuns: 40 },
    );
  });

  it('U4 never fires in any healthy environment (no fuel, sure fixes, an accurate refuter)', () => {
    fc.assert(
      fc.property(
        seedArb,
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 0, max: 12 }),
        prob,
        prob,
        (seed, reviewers, defects, detection, vague) => {
          const r = simulate(
            resolveParams('healthy', { seed, reviewers, defects, detection, vague, trials: 60 }),
          );
          expect(r.config.escalatedPct).toBe(0);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('with U4 every trial of every preset terminates', () => {
    fc.assert(
      fc.property(seedArb, presetArb, fc.subarray(['U1', 'U2', 'U3'] as const), (seed, preset, extra) => {
        const r = simulate(resolveParams(preset, { seed, upgrades: [...extra, 'U4'], trials: 150 }));
        expect(r.config.terminatedPct).toBe(100);
      }),
      { numRuns: 40 },
    );
  });

  it('U2 with an accurate refuter spends fewer rework rounds on false findings, same seed', () => {
    fc.assert(
      fc.property(seedArb, fc.constantFrom<'hostile' | null>('hostile', null), (seed, preset) => {
        const without = simulate(resolveParams(preset, { seed, upgrades: 'none' }));
        const withU2 = simulate(resolveParams(preset, { seed, upgrades: 'U2', refuterAccuracy: 0.95 }));
        expect(withU2.config.wastedRounds).toBeLessThan(without.config.wastedRounds);
      }),
      { numRuns: 25 },
    );
  });

  it('a perfect refuter wastes no round at all', () => {
    const r = simulate(resolveParams('hostile', { upgrades: 'U2', refuterAccuracy: 1 }));
    expect(r.config.wastedRounds).toBe(0);
    expect(r.baseline.wastedRounds).toBeGreaterThan(1);
  });

  it('is deterministic: same seed and params give byte-identical JSON', () => {
    fc.assert(
      fc.property(seedArb, presetArb, (seed, preset) => {
        const p = resolveParams(preset, { seed, trials: 50 });
        expect(JSON.stringify(simulate(p))).toBe(JSON.stringify(simulate(p)));
      }),
      { numRuns: 20 },
    );
    const a = JSON.stringify(simulate(resolveParams(null, { seed: 7 })));
    expect(a).toBe(JSON.stringify(simulate(resolveParams(null, { seed: 7 }))));
    expect(a).not.toBe(JSON.stringify(simulate(resolveParams(null, { seed: 8 }))));
  });
});

describe('simulate: the model behaves as docs/sim.md says', () => {
  it('without upgrades and with the cap at the horizon, the config replays the baseline draw for draw', () => {
    fc.assert(
      fc.property(seedArb, presetArb, (seed, preset) => {
        const r = simulate(
          resolveParams(preset, { seed, upgrades: 'none', cap: 30, maxRounds: 30, trials: 60 }),
        );
        expect(r.config.perRound).toEqual(r.baseline.perRound);
        expect(r.config.escapedDefects).toBe(r.baseline.escapedDefects);
        expect(r.config.wastedRounds).toBe(r.baseline.wastedRounds);
      }),
      { numRuns: 20 },
    );
  });

  it('the baseline stops at its cap and never escalates', () => {
    const r = simulate(resolveParams('oscillating', { cap: 4 }));
    expect(r.baseline.perRound.length).toBeGreaterThanOrEqual(4);
    expect(r.baseline.escalatedPct).toBe(0);
    expect(r.baseline.terminatedPct).toBe(100);
    expect(r.baseline.cappedPct).toBeGreaterThan(50);
    expect(r.baseline.meanRounds).toBeLessThanOrEqual(4);
  });

  it('without U4 or a cap a hostile loop can run to the horizon unterminated', () => {
    const r = simulate(resolveParams('oscillating', { upgrades: 'none' }));
    expect(r.config.terminatedPct).toBeLessThan(50);
    expect(r.config.terminatedPct).toBe(r.config.convergedPct);
  });

  it('each upgrade attacks its failure mode', () => {
    const hostile = (up: string) => simulate(resolveParams('hostile', { upgrades: up })).config;
    const none = hostile('none');
    expect(hostile('U1').perRound[0]!).toBeLessThan(none.perRound[0]!); // vague and inflated blockers demoted
    expect(hostile('U2').wastedRounds).toBeLessThan(none.wastedRounds);
    const osc = (up: string) => simulate(resolveParams('oscillating', { upgrades: up })).config;
    expect(osc('U3').convergedPct).toBeGreaterThan(osc('none').convergedPct + 50);
  });

  it('trial outcomes are internally consistent for any parameters', () => {
    fc.assert(
      fc.property(
        seedArb,
        fc.record({
          reviewers: fc.integer({ min: 1, max: 5 }),
          defects: fc.integer({ min: 0, max: 8 }),
          detection: prob,
          falsePositive: prob,
          vague: prob,
          inflation: prob,
          oscillation: prob,
          fixSuccess: prob,
          refuterAccuracy: prob,
        }),
        fc.subarray(['U1', 'U2', 'U3', 'U4'] as const),
        fc.integer({ min: 0, max: 50 }),
        (seed, env, upgrades, trial) => {
          const p: SimParams = {
            ...resolveParams(null, { seed }),
            ...env,
            maxRounds: 15,
            upgrades: [...upgrades],
          };
          for (const side of [
            { upgrades: [], cap: p.cap },
            { upgrades: p.upgrades, cap: null },
          ]) {
            const o = runTrial(p, side, trial);
            expect(o.rounds).toBe(o.blocking.length);
            expect(o.rounds).toBeGreaterThanOrEqual(1);
            expect(o.rounds).toBeLessThanOrEqual(side.cap ?? p.maxRounds);
            expect(o.escaped).toBeLessThanOrEqual(p.defects);
            expect(o.wasted).toBeLessThanOrEqual(o.rounds - 1);
            if (o.stop === 'converged') expect(o.blocking.at(-1)).toBe(0);
            else expect(o.blocking.at(-1)).toBeGreaterThan(0);
            if (o.stop === 'escalated') {
              const [a, b, c] = o.blocking.slice(-3);
              expect(c! >= b! && b! >= a!).toBe(true);
            }
            expect(runTrial(p, side, trial)).toEqual(o);
          }
        },
      ),
      { numRuns: 150 },
    );
  });

  it('summaries are well-formed: per-round lengths match and percentages add up', () => {
    fc.assert(
      fc.property(seedArb, presetArb, (seed, preset) => {
        const r = simulate(resolveParams(preset, { seed, trials: 40 }));
        expect(r.baseline.perRound.length).toBe(r.config.perRound.length);
        for (const s of [r.baseline, r.config]) {
          const sum = s.convergedPct + s.escalatedPct + s.cappedPct;
          expect(Math.abs(sum - s.terminatedPct)).toBeLessThan(0.15);
          expect(s.perRound.every((v) => v >= 0 && Number(v.toFixed(3)) === v)).toBe(true);
        }
      }),
      { numRuns: 20 },
    );
  });
});
