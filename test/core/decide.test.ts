import { describe, expect, it } from 'vitest';
import {
  decideRound,
  IncompleteReviewError,
  type OpenBlocker,
  type RoundFacts,
  stopRuleFires,
} from '../../src/core/decide.js';

const open = (id: string, over: Partial<OpenBlocker> = {}): OpenBlocker => ({
  id,
  disputed: false,
  needsSettlement: false,
  ...over,
});

const facts = (over: Partial<RoundFacts> = {}): RoundFacts => ({
  round: 2,
  budgets: { rounds: 5, wallSeconds: 1800, costUsd: 5 },
  hasFixer: true,
  reviewsComplete: true,
  openBlockers: [open('b1')],
  progress: [true, true],
  stopWindow: 2,
  spentUsd: 0,
  ...over,
});

describe('invariant 1: no missing result is ever clear', () => {
  it.each([
    ['with no blockers', []],
    ['with blockers', [open('b1')]],
  ])('an incomplete review throws instead of deciding, %s', (_n, openBlockers) => {
    expect(() => decideRound(facts({ reviewsComplete: false, openBlockers }))).toThrow(IncompleteReviewError);
    try {
      decideRound(facts({ round: 3, reviewsComplete: false, openBlockers }));
    } catch (e) {
      expect((e as IncompleteReviewError).round).toBe(3);
    }
  });
});

describe('invariants 8 and 12: the round decision and its stop reasons', () => {
  const noProgress = [true, false, false];
  const cases: [string, Partial<RoundFacts>, ReturnType<typeof decideRound>][] = [
    ['no blocker: clear', { openBlockers: [] }, { kind: 'stop', outcome: 'clear', stopReason: 'clear' }],
    [
      'clear beats review_only, no_progress and budget',
      { openBlockers: [], hasFixer: false, round: 5, progress: [true, false, false, false, false] },
      { kind: 'stop', outcome: 'clear', stopReason: 'clear' },
    ],
    [
      'no fixer: review_only',
      { hasFixer: false, round: 1, progress: [true] },
      { kind: 'stop', outcome: 'findings', stopReason: 'review_only' },
    ],
    [
      'review_only beats no_progress and budget',
      { hasFixer: false, round: 5, progress: [true, false, false, false, false] },
      { kind: 'stop', outcome: 'findings', stopReason: 'review_only' },
    ],
    [
      'two rounds without progress: no_progress',
      { round: 3, progress: noProgress },
      { kind: 'stop', outcome: 'findings', stopReason: 'no_progress' },
    ],
    [
      'no_progress beats budget',
      { round: 3, progress: noProgress, budgets: { rounds: 3, wallSeconds: 1, costUsd: 1 } },
      { kind: 'stop', outcome: 'findings', stopReason: 'no_progress' },
    ],
    [
      'no_progress beats awaiting_settlement',
      { round: 3, progress: noProgress, openBlockers: [open('b1', { disputed: true })] },
      { kind: 'stop', outcome: 'findings', stopReason: 'no_progress' },
    ],
    [
      'rounds exhausted: budget',
      { round: 5, progress: [true, true, true, true, true] },
      { kind: 'stop', outcome: 'findings', stopReason: 'budget' },
    ],
    [
      'beyond the budget: budget',
      { round: 7, progress: [true, true, true, true, true, true, true] },
      { kind: 'stop', outcome: 'findings', stopReason: 'budget' },
    ],
    [
      'budget beats awaiting_settlement',
      { round: 5, progress: [true, true, true, true, true], openBlockers: [open('b1', { disputed: true })] },
      { kind: 'stop', outcome: 'findings', stopReason: 'budget' },
    ],
    [
      'only disputed blockers: awaiting_settlement',
      { openBlockers: [open('b1', { disputed: true })] },
      { kind: 'stop', outcome: 'findings', stopReason: 'awaiting_settlement' },
    ],
    [
      'only protected-path blockers: awaiting_settlement',
      { openBlockers: [open('p1', { needsSettlement: true }), open('b2', { disputed: true })] },
      { kind: 'stop', outcome: 'findings', stopReason: 'awaiting_settlement' },
    ],
    [
      'fix the fixable blockers only',
      {
        openBlockers: [
          open('b1'),
          open('b2', { disputed: true }),
          open('p1', { needsSettlement: true }),
          open('b3'),
        ],
      },
      { kind: 'fix', blockers: ['b1', 'b3'] },
    ],
    [
      'round 1 with blockers and a fixer: fix',
      { round: 1, progress: [true] },
      { kind: 'fix', blockers: ['b1'] },
    ],
    [
      'one round without progress is not yet a stop',
      { round: 2, progress: [true, false] },
      { kind: 'fix', blockers: ['b1'] },
    ],
    [
      'progress in the last round resets the window',
      { round: 4, progress: [true, false, false, true] },
      { kind: 'fix', blockers: ['b1'] },
    ],
    [
      'window 3 needs three rounds without progress',
      { round: 3, progress: noProgress, stopWindow: 3 },
      { kind: 'fix', blockers: ['b1'] },
    ],
    [
      'window 3 fires after three',
      { round: 4, progress: [true, false, false, false], stopWindow: 3 },
      { kind: 'stop', outcome: 'findings', stopReason: 'no_progress' },
    ],
    [
      'a one-round budget allows no fix round',
      { round: 1, progress: [true], budgets: { rounds: 1, wallSeconds: 1, costUsd: 1 } },
      { kind: 'stop', outcome: 'findings', stopReason: 'budget' },
    ],
  ];
  it.each(cases)('%s', (_n, over, expected) => {
    expect(decideRound(facts(over))).toEqual(expected);
  });

  it('never stops clear while any blocker is open, whatever else holds', () => {
    for (const hasFixer of [true, false])
      for (const round of [1, 2, 5, 9])
        for (const b of [open('b'), open('d', { disputed: true }), open('p', { needsSettlement: true })]) {
          const progress = Array.from({ length: round }, (_, i) => i === 0);
          const d = decideRound(facts({ hasFixer, round, progress, openBlockers: [b] }));
          if (d.kind === 'stop') expect(d.outcome).toBe('findings');
        }
  });
});

describe('invariant 8: stopRuleFires', () => {
  const cases: [boolean[], number, boolean][] = [
    [[true], 2, false],
    [[true, false], 2, false],
    [[true, false, false], 2, true],
    [[true, true, false], 2, false],
    [[true, false, true], 2, false],
    [[true, false, false, true], 2, false],
    [[true, false, true, false, false], 2, true],
    [[true, false, false], 3, false],
    [[true, false, false, false], 3, true],
    [[true, true, false, false], 3, false],
    [[true, false, false, true, false, false], 3, false],
    [[true, false, false, true, false, false, false], 3, true],
    [[true], 1, false],
    [[true, false], 1, true],
  ];
  it.each(cases)('%j with window %i: %s', (progress, window, fires) => {
    expect(stopRuleFires(progress, window)).toBe(fires);
  });
});

describe('invariant 12: spend over the frozen cost budget never ends clear', () => {
  const budget = (spentUsd: number, over: Partial<RoundFacts> = {}) =>
    decideRound(facts({ spentUsd, ...over }));
  const stop = (stopReason: string, outcome = 'findings') => ({ kind: 'stop', outcome, stopReason });

  it('over the budget after a complete review: findings / budget, with or without blockers', () => {
    expect(budget(6, { openBlockers: [] })).toEqual(stop('budget'));
    expect(budget(6, { hasFixer: false })).toEqual(stop('budget'));
    expect(budget(5.000001, { round: 1, openBlockers: [], progress: [true] })).toEqual(stop('budget'));
  });

  it('exactly at the budget: clear when nothing blocks, budget when a fix round would have to be paid', () => {
    expect(budget(5, { openBlockers: [] })).toEqual(stop('clear', 'clear'));
    expect(budget(5)).toEqual(stop('budget'));
    expect(budget(4.99)).toEqual({ kind: 'fix', blockers: ['b1'] });
  });

  it('no budget (costUsd 0) never stops for money', () => {
    expect(budget(1e6, { budgets: { rounds: 5, wallSeconds: 60, costUsd: 0 }, openBlockers: [] })).toEqual(
      stop('clear', 'clear'),
    );
  });
});
