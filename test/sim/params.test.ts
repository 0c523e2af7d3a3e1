import { describe, expect, it } from 'vitest';
import { type RevloopError, UsageError } from '../../src/core/errors.js';
import { DEFAULT_PARAMS, PRESETS, parseUpgrades, resolveParams, simulate } from '../../src/sim/index.js';

describe('resolveParams', () => {
  it('starts from the defaults', () => {
    const p = resolveParams();
    expect(p).toEqual({ ...DEFAULT_PARAMS, upgrades: ['U1', 'U2', 'U3', 'U4'] });
    expect(p.trials).toBe(300);
    expect(p.cap).toBe(10);
    expect(p.reviewers).toBe(3);
  });

  it('applies a preset, then lets explicit flags override it', () => {
    const p = resolveParams('hostile', { falsePositive: '0.05', trials: '12', upgrades: 'u2, U1' });
    expect(p.preset).toBe('hostile');
    expect(p.inflation).toBe(PRESETS.hostile.inflation);
    expect(p.falsePositive).toBe(0.05);
    expect(p.trials).toBe(12);
    expect(p.upgrades).toEqual(['U1', 'U2']);
  });

  it('reads "none" as no upgrades', () => {
    expect(parseUpgrades('none')).toEqual([]);
    expect(resolveParams(null, { upgrades: 'NONE' }).upgrades).toEqual([]);
  });

  const bad: [string, Parameters<typeof resolveParams>[1], string | null][] = [
    ['--trials', { trials: '0' }, null],
    ['--trials', { trials: '2.5' }, null],
    ['--trials', { trials: 'ten' }, null],
    ['--seed', { seed: '-1' }, null],
    ['--seed', { seed: '4294967296' }, null],
    ['--reviewers', { reviewers: '0' }, null],
    ['--defects', { defects: '-3' }, null],
    ['--detection', { detection: '1.5' }, null],
    ['--false-positive', { falsePositive: '-0.1' }, null],
    ['--vague', { vague: 'half' }, null],
    ['--inflation', { inflation: '' }, null],
    ['--oscillation', { oscillation: '2' }, null],
    ['--fix-success', { fixSuccess: 'NaN' }, null],
    ['--refuter-accuracy', { refuterAccuracy: '1e3' }, null],
    ['--cap', { cap: '0' }, null],
    ['--max-rounds', { maxRounds: '0' }, null],
    ['--max-rounds', { cap: '12', maxRounds: '11' }, null],
    ['--upgrades', { upgrades: 'U1,U7' }, null],
    ['--preset', {}, 'friendly'],
  ];
  it.each(bad)('rejects a bad %s with a UsageError naming the flag', (flag, overrides, preset) => {
    let caught: unknown;
    try {
      resolveParams(preset, overrides);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(UsageError);
    expect((caught as RevloopError).code).toBe('usage');
    expect((caught as Error).message.startsWith(`${flag}:`)).toBe(true);
  });

  it('simulate re-validates params built by hand (the dashboard path)', () => {
    expect(() => simulate({ ...resolveParams(), detection: 3 })).toThrow(/--detection/);
    expect(() => simulate({ ...resolveParams(), upgrades: ['U9' as 'U1'] })).toThrow(/--upgrades/);
  });
});
