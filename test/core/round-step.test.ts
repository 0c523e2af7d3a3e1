/**
 * One walk of a round (core/round-step.ts), and no second copy of it: the
 * driver, replay, the property-test harness and the simulator each fold over
 * roundStep, and the sequence each takes is the one walkPlans gives for the
 * same decisions. The driver's sequence is read from its stage events on a
 * real run (real git, subprocess agents, a real check, a SQLite ledger).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { RoundDecision } from '../../src/core/decide.js';
import { roundStep, WALK_START, type WalkFacts, type WalkPlan } from '../../src/core/round-step.js';
import { stage as stageOf } from '../../src/core/stage-results.js';
import { DEFAULT_PARAMS, PRESET_NAMES, PRESETS } from '../../src/sim/params.js';
import { runTrial } from '../../src/sim/trial.js';
import { SRC } from '../helpers/source-files.js';
import {
  baseConfig,
  ensureBuilt,
  FIXED_FILE,
  findings,
  inProcess,
  LOCK_CHECK,
  makeReviewRepo,
  pass,
  raceFinding,
  reposRemovedAfterAll,
  review,
} from '../loop/helpers.js';
import { runLoop } from './planner-run.js';

/**
 * The steps a walk takes over facts that never change: every stage, begin and
 * stop it plans until `until` says enough. Tests use it to compare the
 * walkers' sequences with the one order.
 */
function walkPlans(facts: WalkFacts, until: (plan: WalkPlan) => boolean): WalkPlan[] {
  const plans: WalkPlan[] = [];
  let at = WALK_START;
  for (;;) {
    const s = roundStep(at, facts);
    plans.push(s.plan);
    if (until(s.plan)) return plans;
    at = s.at;
  }
}

const FIX: RoundDecision = { kind: 'fix', blockers: ['b'] };
const CLEAR: RoundDecision = { kind: 'stop', outcome: 'clear', stopReason: 'clear' };

const label = (p: WalkPlan): string =>
  p.kind === 'stage' ? `${p.round}:${p.stage}` : `${p.round}:${p.kind}`;

/** Facts of a run whose rounds decide `decisions` in turn, nothing recorded yet. */
const deciding = (decisions: RoundDecision[], hasChecks: boolean): WalkFacts => ({
  hasChecks,
  recorded: () => false,
  decision: (round) => decisions[round - 1],
});

describe('roundStep', () => {
  it('walks the baseline checks, then review, refute, decide, fix and checks until the decision stops', () => {
    const plans = walkPlans(deciding([FIX, CLEAR], true), (p) => p.kind === 'stop').map(label);
    // Decisions are facts here, so no round needs beginning: a round with a decision is not begun again.
    expect(plans).toEqual([
      '0:checks',
      '1:review',
      '1:refute',
      '1:decide',
      '1:fix',
      '1:checks',
      '2:review',
      '2:refute',
      '2:decide',
      '2:stop',
    ]);
  });

  it('begins a round not decided yet, and without checks there is no round 0 and no checks stage', () => {
    const plans = walkPlans(deciding([], false), (p) => p.kind === 'stage' && p.stage === 'decide').map(
      label,
    );
    expect(plans).toEqual(['1:begin', '1:review', '1:refute', '1:decide']);
  });

  it('skips what is recorded: a resumed run walks on from where the ledger stands', () => {
    const recorded = new Set(['0:checks', '1:review', '1:refute', '1:decide', '1:fix']);
    const facts: WalkFacts = {
      hasChecks: true,
      recorded: (round, stage) => recorded.has(`${round}:${stage}`),
      decision: (round) => (round === 1 ? FIX : undefined),
    };
    expect(walkPlans(facts, (p) => p.kind === 'begin').map(label)).toEqual(['1:checks', '2:begin']);
  });

  it('a walker that plays on past a stop is given the round’s fix next', () => {
    const escalated: RoundDecision = { kind: 'stop', outcome: 'findings', stopReason: 'no_progress' };
    const first = roundStep({ round: 3, step: 4 }, deciding([FIX, FIX, escalated], false));
    expect(first.plan).toMatchObject({ kind: 'stop', round: 3 });
    expect(roundStep(first.at, deciding([FIX, FIX, escalated], false)).plan).toEqual({
      kind: 'stage',
      round: 3,
      stage: 'fix',
    });
  });
});

describe('the four walkers take the one walk', () => {
  const repos = reposRemovedAfterAll();
  beforeAll(() => ensureBuilt(), 600_000);

  it('the driver: its stage events on a real run are the walk over its recorded decisions', async () => {
    const r = await makeReviewRepo({
      config: (a) =>
        baseConfig(a, {
          refuter: a,
          fixer: a,
          checks: [{ name: 'serialised', run: ['node', 'checks/lock.mjs'] }],
        }),
      files: { 'checks/lock.mjs': LOCK_CHECK },
    });
    repos.push(r);
    r.plan({
      reviewer: [{ round: 1, reply: findings(raceFinding()) }, { reply: pass }],
      refuter: [{ reply: { decision: 'upheld', reason: 'the await splits the read from the write' } }],
      fixer: [{ write: { 'src/calc.js': FIXED_FILE }, reply: { disputed: [] } }],
    });
    const events: string[] = [];
    const stages = new Set<string>(['review', 'refute', 'decide', 'fix', 'checks']);
    const p = await inProcess(r.dir, {
      tweak: (d) => ({
        ...d,
        onEvent: (e) => {
          if (e.kind === 'stage' && stages.has(e.stage)) events.push(`${e.round}:${e.stage}`);
        },
      }),
    });
    try {
      const { report } = await review(p, r.dir);
      expect(report.run).toMatchObject({ status: 'completed', outcome: 'clear', roundsDone: 2 });
      const facts: WalkFacts = {
        hasChecks: true,
        recorded: () => false,
        decision: (round) => stageOf(report.stages, round, 'decide')?.decision,
      };
      const walked = walkPlans(facts, (pl) => pl.kind === 'stop').filter((pl) => pl.kind === 'stage');
      expect(events).toEqual(walked.map(label));
      expect(events).toEqual([
        '0:checks',
        '1:review',
        '1:refute',
        '1:decide',
        '1:fix',
        '1:checks',
        '2:review',
        '2:refute',
        '2:decide',
      ]);
    } finally {
      await p.close();
    }
  });

  it('the simulator: a trial’s steps are the walk over its decisions', () => {
    for (const [i, preset] of PRESET_NAMES.entries())
      for (let trial = 0; trial < 5; trial++) {
        const p = { ...DEFAULT_PARAMS, ...PRESETS[preset], maxRounds: 8 + i };
        const steps: WalkPlan[] = [];
        const decisions: RoundDecision[] = [];
        runTrial(
          p,
          { upgrades: p.upgrades, onStep: (s) => steps.push(s), onRound: (x) => decisions.push(x.decision) },
          trial,
        );
        // A round is begun before it is decided, so beginnings are left out of the comparison.
        const taken = steps.filter((s) => s.kind !== 'begin');
        let n = 0;
        const walked = walkPlans(
          deciding(decisions, false),
          (s) => s.kind !== 'begin' && ++n >= taken.length,
        );
        expect(taken.map(label)).toEqual(walked.filter((s) => s.kind !== 'begin').map(label));
      }
  });

  it('the property-test harness: a run’s steps are the walk over its decisions', () => {
    const steps: WalkPlan[] = [];
    const trace = runLoop(
      {
        rounds: 4,
        stopWindow: 2,
        shrinkRatio: 0.5,
        hasFixer: true,
        editsProtected: false,
        unitInitially: false,
        diffInitially: 40,
      },
      {
        review: (round) => ({
          raised:
            round === 1
              ? [{ reviewer: 'a', line: 10, endLine: 12, severity: 'MAJOR', concrete: true, refuted: false }]
              : [],
          complete: true,
        }),
        fix: () => new Map([['a:10-12', { touch: true, dispute: false, citesUnit: true }]]),
        afterFix: () => ({ unitPasses: true, diffLines: 30, settle: [], settleProtected: false }),
      },
      100,
      (s) => steps.push(s),
    );
    expect(trace.end).toMatchObject({ status: 'completed', outcome: 'clear' });
    expect(steps.map(label)).toEqual([
      '1:begin',
      '1:review',
      '1:refute',
      '1:decide',
      '1:fix',
      '2:begin',
      '2:review',
      '2:refute',
      '2:decide',
      '2:stop',
    ]);
  });

  it('no walker writes the order down again: the four fold over roundStep, and only round-step.ts reads ROUND_STAGES', () => {
    const walkers = [
      join(SRC, 'loop/run/driver.ts'),
      join(SRC, 'core/replay.ts'),
      join(SRC, 'sim/trial.ts'),
      join(import.meta.dirname, 'planner-run.ts'),
    ];
    for (const f of walkers) expect(readFileSync(f, 'utf8'), f).toMatch(/roundStep\(at, /);
    for (const f of walkers) {
      // A loop over the rounds or the stages of its own would be a second copy of the walk.
      const text = readFileSync(f, 'utf8');
      expect(text, f).not.toMatch(/for \(let round = /);
      expect(text, f).not.toMatch(/ROUND_STAGES/);
    }
  });
});
