import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Severity } from '../../src/core/types.js';
import {
  type AfterFix,
  type FixAct,
  keyOf,
  type ModelConfig,
  type Raise,
  runLoop,
  slotLines,
  type World,
} from './planner-run.js';

const RUNS = { numRuns: 600 };
// The harness (planner-run.ts) records facts; every decision below is a planner's (issue 16).
const REVIEWERS = ['correctness', 'standards'] as const;
const severity = fc.constantFrom<Severity>('MAJOR', 'MODERATE', 'MINOR');
const blocking = fc.constantFrom<Severity>('MAJOR', 'MODERATE');

const config = fc.record({
  rounds: fc.integer({ min: 1, max: 8 }),
  stopWindow: fc.integer({ min: 1, max: 3 }),
  shrinkRatio: fc.constantFrom(0.1, 0.2, 0.5),
  hasFixer: fc.boolean(),
  editsProtected: fc.boolean(),
  unitInitially: fc.boolean(),
  diffInitially: fc.integer({ min: 1, max: 400 }),
}) satisfies fc.Arbitrary<ModelConfig>;

const raiseGen = fc.record({
  reviewer: fc.constantFrom(...REVIEWERS),
  slot: fc.integer({ min: 0, max: 5 }),
  severity,
  concrete: fc.boolean(),
  refuted: fc.boolean(),
});

/** Arbitrary behaviour of everyone, round by round (cycled when the loop runs longer). */
const roundGen = fc.record({
  raised: fc.array(raiseGen, { maxLength: 6 }),
  // One round in ten has a reviewer call that ended without a verdict.
  incomplete: fc.integer({ min: 0, max: 9 }).map((n) => n === 0),
  acts: fc.array(fc.record({ touch: fc.boolean(), dispute: fc.boolean(), citesUnit: fc.boolean() }), {
    minLength: 1,
    maxLength: 6,
  }),
  unitPasses: fc.boolean(),
  diffDelta: fc.integer({ min: -200, max: 100 }),
  settle: fc.option(fc.constantFrom('upheld' as const, 'overturned' as const), { nil: null }),
  settleProtected: fc.boolean(),
});
type RoundGen = typeof roundGen extends fc.Arbitrary<infer T> ? T : never;

function arbitraryWorld(rounds: RoundGen[], diff0: number): World {
  let diff = diff0;
  const at = (round: number) => rounds[(round - 1) % rounds.length]!;
  return {
    review: (round) => ({
      raised: at(round).raised.map((r) => ({ ...r, ...slotLines(r.slot) })),
      complete: !at(round).incomplete,
    }),
    fix: (round, blockers) =>
      new Map(blockers.map((b, i) => [keyOf(b), at(round).acts[i % at(round).acts.length]!])),
    afterFix: (round, openDisputes): AfterFix => {
      const g = at(round);
      diff = Math.max(0, diff + g.diffDelta);
      const oldest = openDisputes[0];
      return {
        unitPasses: g.unitPasses,
        diffLines: diff,
        settle: g.settle && oldest ? [{ key: oldest, decision: g.settle }] : [],
        settleProtected: g.settleProtected,
      };
    },
  };
}

/** An independent reading of "a blocker is open", from raw behaviour only (no core function). */
const rawBlocker = (r: Raise, overturned: Set<string>) =>
  r.severity !== 'MINOR' && r.concrete && !r.refuted && !overturned.has(keyOf(r));

describe('the loop model under arbitrary behaviour', () => {
  const scenario = fc.record({ cfg: config, rounds: fc.array(roundGen, { minLength: 1, maxLength: 8 }) });

  it('invariant 12: always ends within budgets.rounds rounds', () => {
    fc.assert(
      fc.property(scenario, ({ cfg, rounds }) => {
        const t = runLoop(cfg, arbitraryWorld(rounds, cfg.diffInitially));
        expect(t.roundsRun).toBeLessThanOrEqual(cfg.rounds);
        if (!cfg.hasFixer) expect(t.roundsRun).toBe(1);
      }),
      RUNS,
    );
  });

  it('invariants 1, 2, 8: never clear while a blocker is open or a dispute or protected path is unsettled', () => {
    const seen = new Set<string>();
    fc.assert(
      fc.property(scenario, ({ cfg, rounds }) => {
        const t = runLoop(cfg, arbitraryWorld(rounds, cfg.diffInitially));
        const { end, last } = t;
        seen.add(end.stopReason ?? end.status);
        if (end.status !== 'completed') {
          // Invariant 1: only an incomplete review ends a run early here, and it never carries an outcome.
          expect(end).toMatchObject({ status: 'failed', outcome: null, stopReason: null });
          return;
        }
        const open =
          last.raised.some((r) => rawBlocker(r, last.overturned)) ||
          last.openDisputes.length > 0 ||
          last.protectedOpen;
        expect(end.outcome).toBe(open ? 'findings' : 'clear');
        expect(end.stopReason === 'clear').toBe(end.outcome === 'clear');
        if (end.stopReason === 'no_progress')
          expect(
            t.progress.slice(-cfg.stopWindow).every((p) => !p) && t.progress.length > cfg.stopWindow,
          ).toBe(true);
        if (end.stopReason === 'budget') expect(t.roundsRun).toBe(cfg.rounds);
      }),
      RUNS,
    );
    // The generator must reach every way a run ends, or the property says little.
    expect([...seen].sort()).toEqual(
      ['awaiting_settlement', 'budget', 'clear', 'failed', 'no_progress', 'review_only'].sort(),
    );
  });

  it('invariant 1: an incomplete review in any round never yields clear', () => {
    fc.assert(
      fc.property(scenario, fc.integer({ min: 1, max: 8 }), ({ cfg, rounds }, failAt) => {
        const world = arbitraryWorld(rounds, cfg.diffInitially);
        const review = world.review;
        world.review = (round) => ({
          ...review(round),
          complete: round === failAt ? false : review(round).complete,
        });
        const t = runLoop(cfg, world);
        if (t.roundsRun >= failAt) expect(t.end).toMatchObject({ status: 'failed', outcome: null });
      }),
      RUNS,
    );
  });
});

/** Blockers that go away only through fixes with evidence: the fixer touched their lines and nobody raises them again. */
describe('invariant 8: real fixes are progress', () => {
  const gen = fc.record({
    cfg: config.map((c) => ({ ...c, hasFixer: true, editsProtected: false })),
    initial: fc.array(fc.record({ reviewer: fc.constantFrom(...REVIEWERS), severity: blocking }), {
      minLength: 1,
      maxLength: 6,
    }),
    plans: fc.array(
      fc.record({
        fix: fc.array(fc.boolean(), { minLength: 6, maxLength: 6 }),
        touchOthers: fc.array(fc.boolean(), { minLength: 6, maxLength: 6 }),
        citesUnit: fc.boolean(),
        noise: fc.array(
          fc.record({
            reviewer: fc.constantFrom(...REVIEWERS),
            slot: fc.integer({ min: 20, max: 30 }),
            kind: fc.constantFrom('minor', 'refuted', 'vague'),
          }),
          { maxLength: 3 },
        ),
      }),
      { minLength: 8, maxLength: 8 },
    ),
  });

  it('the stop rule never fires while the blocking count strictly decreases through fixes with evidence', () => {
    fc.assert(
      fc.property(gen, ({ cfg, initial, plans }) => {
        const remaining = new Set(initial.map((_, slot) => slot));
        const raiseOf = (slot: number): Raise => ({
          ...initial[slot]!,
          ...slotLines(slot),
          concrete: true,
          refuted: false,
        });
        const world: World = {
          review: (round) => {
            const noise = plans[(round - 1) % plans.length]!.noise.map(
              (n): Raise => ({
                reviewer: n.reviewer,
                ...slotLines(n.slot),
                severity: n.kind === 'minor' ? 'MINOR' : 'MAJOR',
                concrete: n.kind !== 'vague',
                refuted: n.kind === 'refuted',
              }),
            );
            return { raised: [...[...remaining].map(raiseOf), ...noise], complete: true };
          },
          fix: (round, blockers) => {
            const plan = plans[(round - 1) % plans.length]!;
            const slots = blockers.map((b) => (b.line - 10) / 10);
            const chosen = slots.filter((s) => plan.fix[s]);
            if (chosen.length === 0) chosen.push(slots[0]!);
            const acts = new Map<string, FixAct>();
            for (const s of slots) {
              const fixed = chosen.includes(s);
              if (fixed) remaining.delete(s);
              acts.set(keyOf(raiseOf(s)), {
                touch: fixed || plan.touchOthers[s]!,
                dispute: false,
                citesUnit: fixed && plan.citesUnit,
              });
            }
            return acts;
          },
          afterFix: () => ({
            unitPasses: true,
            diffLines: cfg.diffInitially,
            settle: [],
            settleProtected: false,
          }),
        };
        const t = runLoop({ ...cfg, unitInitially: true }, world);
        for (let i = 1; i < t.blocking.length; i++) expect(t.blocking[i]!).toBeLessThan(t.blocking[i - 1]!);
        expect(t.progress.every(Boolean)).toBe(true);
        expect(t.end.stopReason).not.toBe('no_progress');
        if (cfg.rounds > initial.length)
          expect(t.end).toMatchObject({ outcome: 'clear', stopReason: 'clear' });
        else expect(t.end.stopReason === 'clear' || t.end.stopReason === 'budget').toBe(true);
      }),
      RUNS,
    );
  });
});

/** Blockers whose count falls only because reviewers lower their own severity or reword/merge the same claim. */
describe('invariant 8: a lower self-reported severity or a rewording is not progress', () => {
  const gen = fc.record({
    cfg: config.map((c) => ({ ...c, hasFixer: true, editsProtected: false, rounds: c.rounds + 2 })),
    initial: fc.array(fc.constantFrom(...REVIEWERS), { minLength: 1, maxLength: 6 }),
    plans: fc.array(
      fc.record({
        // Per finding: keep, re-raise at MINOR, or reword (shift its lines by one, within the re-raise slack).
        how: fc.array(fc.constantFrom('keep', 'minor', 'reword'), { minLength: 12, maxLength: 12 }),
        merge: fc.boolean(),
        touch: fc.array(fc.boolean(), { minLength: 12, maxLength: 12 }),
        citesUnit: fc.boolean(),
        diffDelta: fc.integer({ min: 0, max: 50 }),
      }),
      { minLength: 8, maxLength: 8 },
    ),
    unit: fc.boolean(),
  });

  it('the count may fall, but no round after the first is progress, and the run stops within the window', () => {
    fc.assert(
      fc.property(gen, ({ cfg, initial, plans, unit }) => {
        let current: Raise[] = initial.map((reviewer, slot) => ({
          reviewer,
          ...slotLines(slot),
          severity: 'MAJOR',
          concrete: true,
          refuted: false,
        }));
        let diff = cfg.diffInitially;
        const world: World = {
          review: (round) => {
            if (round > 1) {
              const plan = plans[(round - 2) % plans.length]!;
              current = current.map((r, i) => {
                const how = plan.how[i % plan.how.length];
                if (how === 'minor') return { ...r, severity: 'MINOR' };
                if (how === 'reword') return { ...r, line: r.line + 1, endLine: r.endLine + 1 };
                return r;
              });
              // Merge two blocking findings of one reviewer into one claim spanning both.
              const first = current.findIndex((r) => r.severity !== 'MINOR');
              const second = current.findIndex(
                (r, i) => i > first && r.severity !== 'MINOR' && r.reviewer === current[first]?.reviewer,
              );
              if (plan.merge && first >= 0 && second >= 0) {
                const a = current[first]!;
                const b = current[second]!;
                const merged = {
                  ...a,
                  line: Math.min(a.line, b.line),
                  endLine: Math.max(a.endLine, b.endLine),
                };
                current = current.filter((_, i) => i !== first && i !== second).concat(merged);
              }
            }
            return { raised: current, complete: true };
          },
          fix: (round, blockers) => {
            const plan = plans[(round - 1) % plans.length]!;
            return new Map(
              blockers.map((b, i) => [
                keyOf(b),
                { touch: plan.touch[i % plan.touch.length]!, dispute: false, citesUnit: plan.citesUnit },
              ]),
            );
          },
          afterFix: (round) => {
            diff += plans[(round - 1) % plans.length]!.diffDelta;
            // The check never goes from failing to passing.
            return { unitPasses: unit, diffLines: diff, settle: [], settleProtected: false };
          },
        };
        const t = runLoop({ ...cfg, unitInitially: unit }, world);
        for (const e of t.evidence)
          expect(e).toMatchObject({ progress: false, fixed: [], settled: [], shrank: false });
        expect(t.roundsRun).toBeLessThanOrEqual(1 + cfg.stopWindow);
        if (t.end.stopReason === 'no_progress') expect(t.roundsRun).toBe(1 + cfg.stopWindow);
        if (t.end.outcome === 'clear') expect(current.every((r) => r.severity === 'MINOR')).toBe(true);
      }),
      RUNS,
    );
  });
});
