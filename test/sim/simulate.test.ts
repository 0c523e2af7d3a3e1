import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decideRound, stopRuleFires } from '../../src/core/decide.js';
import { evaluateProgress } from '../../src/core/progress.js';
import {
  PRESET_NAMES,
  type RoundRecord,
  resolveParams,
  runTrial,
  type SimParams,
  simulate,
} from '../../src/sim/index.js';

const seedArb = fc.integer({ min: 0, max: 0xffffffff });
const prob = fc.double({ min: 0, max: 1, noNaN: true });
const presetArb = fc.constantFrom<(typeof PRESET_NAMES)[number] | null>(null, ...PRESET_NAMES);
const upgradesArb = fc.subarray(['U1', 'U2', 'U3', 'U4'] as const);
const envArb = fc.record({
  reviewers: fc.integer({ min: 1, max: 6 }),
  defects: fc.integer({ min: 0, max: 10 }),
  regions: fc.integer({ min: 1, max: 20 }),
  detection: prob,
  falsePositive: prob,
  vague: prob,
  vagueFalse: prob,
  inflation: prob,
  gaming: prob,
  oscillation: prob,
  fixSuccess: prob,
  refuterAccuracy: prob,
  simplify: prob,
  stopWindow: fc.integer({ min: 1, max: 4 }),
  shrinkRatio: prob,
  stopRule: fc.constantFrom<'evidence' | 'count'>('evidence', 'count'),
});

function params(
  seed: number,
  env: Partial<SimParams>,
  upgrades: readonly string[],
  maxRounds = 15,
): SimParams {
  return {
    ...resolveParams(null, { seed, cap: Math.min(10, maxRounds) }),
    ...env,
    maxRounds,
    upgrades: [...upgrades] as SimParams['upgrades'],
  };
}

describe('simulate: the properties issue 19 asks for', () => {
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

  it('the flags that used to grow the conflict list without bound finish, with bounded state', () => {
    // --oscillation 1 --fix-success 0 --trials 1 --upgrades none --max-rounds 24 aborted Node at about 3.4 GB.
    const p = resolveParams(null, {
      oscillation: 1,
      fixSuccess: 0,
      trials: 1,
      upgrades: 'none',
      maxRounds: 24,
    });
    const r = simulate(p);
    expect(r.config.perRound.length).toBe(24);
    const o = runTrial({ ...p, maxRounds: 1000, cap: 10 }, { upgrades: [] }, 0).outcome;
    expect(o.rounds).toBe(1000);
    expect(o.shippedConflicts).toBeLessThanOrEqual(p.reviewers * p.regions);
    expect(Math.max(...o.blocking)).toBeLessThanOrEqual(p.reviewers * (p.defects + 2 + p.regions));
  });

  it('no parameter combination in range crashes or exceeds its state bound', () => {
    fc.assert(
      fc.property(seedArb, envArb, upgradesArb, fc.integer({ min: 1, max: 40 }), (seed, env, up, horizon) => {
        const p = params(seed, env, up, horizon);
        for (const side of [{ upgrades: [] as const, capAt: p.cap }, { upgrades: p.upgrades }]) {
          const { outcome: o } = runTrial(p, side, seed % 97);
          expect(o.rounds).toBe(o.blocking.length);
          expect(o.rounds).toBeGreaterThanOrEqual(1);
          expect(o.rounds).toBeLessThanOrEqual(p.maxRounds);
          // Every finding is one of: a defect per reviewer, a false positive, a nit, a conflict per region.
          for (const b of o.blocking)
            expect(b).toBeLessThanOrEqual(p.reviewers * (p.defects + 2 + p.regions));
          expect(o.shippedConflicts).toBeLessThanOrEqual(p.reviewers * p.regions);
          if (o.stop === 'converged') expect(o.blocking.at(-1)).toBe(0);
          else expect(o.blocking.at(-1)).toBeGreaterThan(0);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('the extremes of every range at once finish within the state bound', () => {
    // Without U4: core's re-raise test compares every prior blocker with every finding, and here a
    // round holds about 50,000 findings (the property above covers U4 at smaller sizes).
    const big = params(
      1,
      { reviewers: 50, defects: 1000, regions: 1000, oscillation: 1, fixSuccess: 0 },
      [],
      4,
    );
    const { outcome } = runTrial(big, { upgrades: ['U1', 'U2', 'U3'] }, 0);
    expect(outcome.rounds).toBeLessThanOrEqual(4);
    expect(outcome.shippedConflicts).toBeLessThanOrEqual(50 * 1000);
    expect(outcome.defectsFixed + outcome.shippedDefects).toBe(1000);
  });

  it('with U3 on, a conflict born of rework is never dropped', () => {
    fc.assert(
      fc.property(seedArb, envArb, upgradesArb, (seed, env, up) => {
        const p = params(seed, { ...env, oscillation: Math.max(env.oscillation, 0.3) }, [
          ...new Set([...up, 'U3']),
        ]);
        const { outcome } = runTrial(p, { upgrades: p.upgrades }, seed % 31);
        expect(outcome.conflictsDemoted).toBe(0);
      }),
      { numRuns: 200 },
    );
  });

  it('every genuine finding ends fixed or counted as shipped', () => {
    fc.assert(
      fc.property(seedArb, envArb, upgradesArb, (seed, env, up) => {
        const p = params(seed, env, up);
        const run = runTrial(p, { upgrades: p.upgrades, capAt: p.cap }, seed % 53);
        for (const o of [run.outcome, run.capped!]) {
          expect(o.defectsFixed + o.shippedDefects).toBe(p.defects);
          expect(o.conflictsFixed + o.shippedConflicts).toBe(o.conflictsBorn);
        }
      }),
      { numRuns: 200 },
    );
  });

  it("the sim's stop decision equals the live loop's core function on the same facts", () => {
    fc.assert(
      fc.property(seedArb, envArb, (seed, env) => {
        const p = params(seed, env, ['U1', 'U2', 'U3', 'U4']);
        const records: RoundRecord[] = [];
        runTrial(p, { upgrades: p.upgrades, onRound: (r) => records.push(r) }, seed % 11);
        const progress: boolean[] = [];
        let escalated = false;
        for (const r of records) {
          if (r.round === 1) progress.push(true);
          else if (escalated) progress.push(true);
          else if (p.stopRule === 'evidence') progress.push(evaluateProgress(r.facts!).progress);
          else {
            const prev = records[r.round - 2]!.blocking;
            progress.push(!(prev > 0 && r.blocking >= prev));
          }
          expect(r.progress).toEqual(progress);
          const live = decideRound({
            round: r.round,
            budgets: { rounds: 1000, wallSeconds: 1800, costUsd: 5 },
            hasFixer: true,
            reviewsComplete: true,
            spentUsd: 0,
            openBlockers: Array.from({ length: r.blocking }, (_, k) => ({
              id: `f${k}`,
              disputed: false,
              needsSettlement: false,
            })),
            progress,
            stopWindow: p.stopWindow,
          });
          expect(r.decision.kind).toBe(live.kind);
          if (live.kind === 'stop' && r.decision.kind === 'stop')
            expect(r.decision.stopReason).toBe(live.stopReason);
          if (stopRuleFires(progress, p.stopWindow) && r.blocking > 0) escalated = true;
        }
      }),
      { numRuns: 150 },
    );
  });

  it('without U4 the configuration replays the uncapped baseline draw for draw (same horizon)', () => {
    fc.assert(
      fc.property(seedArb, presetArb, (seed, preset) => {
        const r = simulate(resolveParams(preset, { seed, upgrades: 'none', trials: 60 }));
        expect(r.config).toEqual(r.baseline);
      }),
      { numRuns: 20 },
    );
  });
});

describe('simulate: the figures issue 19 sets (seed 1, 300 trials)', () => {
  it('hostile: U1-U4 terminate every trial, median <= 3 rounds, shipping no more than the capped baseline', () => {
    const r = simulate(resolveParams('hostile', {}));
    expect(r.config.terminatedPct).toBe(100);
    expect(r.config.medianRounds).toBeLessThanOrEqual(3);
    expect(r.config.shipped).toBeLessThanOrEqual(r.capped.shipped);
    // The cap is its own effect: the same trials without it run on (some to the horizon).
    expect(r.capped.cappedPct).toBeGreaterThan(0);
    expect(r.baseline.cappedPct).toBe(0);
    expect(r.baseline.meanRounds).toBeGreaterThan(r.capped.meanRounds);
  });

  it('healthy: false escalations at most 1 %, reported with a Wilson interval', () => {
    const r = simulate(resolveParams('healthy', {}));
    expect(r.params.fixSuccess).toBeLessThan(1);
    expect(r.params.refuterAccuracy).toBeLessThan(1);
    expect(r.config.falseEscalationPct).toBeLessThanOrEqual(1);
    const [lo, hi] = r.config.ci.falseEscalationPct;
    expect(lo).toBeLessThanOrEqual(r.config.falseEscalationPct);
    expect(hi).toBeGreaterThanOrEqual(r.config.falseEscalationPct);
    expect(hi).toBeLessThan(2);
  });

  it('U2 with an accurate refuter reworks fewer false blockers, same seed', () => {
    fc.assert(
      fc.property(seedArb, fc.constantFrom<'hostile' | null>('hostile', null), (seed, preset) => {
        const without = simulate(resolveParams(preset, { seed, upgrades: 'none', trials: 100 }));
        const withU2 = simulate(
          resolveParams(preset, { seed, upgrades: 'U2', refuterAccuracy: 0.95, trials: 100 }),
        );
        expect(withU2.config.falseReworks).toBeLessThan(without.config.falseReworks);
      }),
      { numRuns: 15 },
    );
  });

  it('a genuine finding the refuter wrongly refutes ships instead of vanishing', () => {
    // One defect every reviewer sees, a refuter that is always wrong: the loop "converges" at once, shipping it.
    const p = resolveParams(null, {
      defects: 1,
      detection: 1,
      falsePositive: 0,
      inflation: 0,
      oscillation: 0,
      refuterAccuracy: 0,
      upgrades: 'U2',
      trials: 20,
    });
    const r = simulate(p);
    expect(r.config.convergedPct).toBe(100);
    expect(r.config.medianRounds).toBe(1);
    expect(r.config.shippedDefects).toBe(1);
  });

  it('summaries are well-formed: lengths match, percentages add up, intervals hold their values', () => {
    fc.assert(
      fc.property(seedArb, presetArb, (seed, preset) => {
        const r = simulate(resolveParams(preset, { seed, trials: 40 }));
        for (const s of [r.baseline, r.capped, r.config]) {
          expect(s.perRound.length).toBe(r.config.perRound.length);
          const sum = s.convergedPct + s.escalatedPct + s.cappedPct;
          expect(Math.abs(sum - s.terminatedPct)).toBeLessThan(0.15);
          expect(s.perRound.every((v) => v >= 0 && Number(v.toFixed(3)) === v)).toBe(true);
          for (const key of [
            'convergedPct',
            'terminatedPct',
            'escalatedPct',
            'meanRounds',
            'shipped',
          ] as const) {
            const [lo, hi] = s.ci[key];
            expect(lo).toBeLessThanOrEqual(s[key] + 1e-9);
            expect(hi).toBeGreaterThanOrEqual(s[key] - 1e-9);
          }
          expect(s.p90Rounds).toBeGreaterThanOrEqual(s.medianRounds);
        }
      }),
      { numRuns: 20 },
    );
  });
});
