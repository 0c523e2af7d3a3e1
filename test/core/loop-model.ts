/**
 * A small pure model of the review loop, for property tests: it drives the
 * core's gating, blocker rules, progress evidence and round decision round by
 * round, with every reviewer, refuter, fixer and person behaviour supplied by
 * a `World`. It mirrors what the driver does with recorded facts, nothing more.
 */
import { decideRound, IncompleteReviewError, type OpenBlocker } from '../../src/core/decide.js';
import { endForCallFailure } from '../../src/core/failure-map.js';
import { gateScenario } from '../../src/core/gating.js';
import type { FindingRow } from '../../src/core/ledger.js';
import { evaluateProgress, type PriorBlocker, type ProgressEvidence } from '../../src/core/progress.js';
import { isBlocker } from '../../src/core/run-report.js';
import { completedEnd, type TerminalEnd } from '../../src/core/run-state.js';
import type { Severity } from '../../src/core/types.js';

export const FILE = 'src/cart.ts';
export const CRITERIA = '- R1: totals are integer cents\n- R2: retries are bounded';
const CONCRETE = 'when the cart is empty, total() returns NaN and the order is charged 0';
const VAGUE = 'This could be a problem.';

/** One finding as a reviewer raises it, with the refuter's decision on it. */
export interface Raise {
  reviewer: string;
  line: number;
  endLine: number;
  severity: Severity;
  /** Names a concrete scenario; otherwise a stock phrase (gating demotes it). */
  concrete: boolean;
  refuted: boolean;
}

/** Lines of a finding "slot": slots are far enough apart never to read as re-raises of each other. */
export const slotLines = (slot: number): { line: number; endLine: number } => ({
  line: 10 + 10 * slot,
  endLine: 12 + 10 * slot,
});

/** "The same claim" across rounds: reviewer and lines. */
export const keyOf = (r: Pick<Raise, 'reviewer' | 'line' | 'endLine'>): string =>
  `${r.reviewer}:${r.line}-${r.endLine}`;

export interface FixAct {
  touch: boolean;
  dispute: boolean;
  citesUnit: boolean;
}

export interface AfterFix {
  /** The `unit` check on the new revision. */
  unitPasses: boolean;
  diffLines: number;
  /** A named person's decisions on open disputes (by key). */
  settle: { key: string; decision: 'upheld' | 'overturned' }[];
  settleProtected: boolean;
}

export interface World {
  /** Every configured reviewer's findings on this round's revision; `complete: false` when one call ended without a verdict. */
  review(round: number): { raised: Raise[]; complete: boolean };
  /** What the fixer does to each blocker the controller asked it to fix. */
  fix(round: number, blockers: Raise[]): Map<string, FixAct>;
  afterFix(round: number, openDisputes: string[], protectedOpen: boolean): AfterFix;
}

export interface ModelConfig {
  rounds: number;
  stopWindow: number;
  shrinkRatio: number;
  hasFixer: boolean;
  /** The change edits a protected path: only a person can clear that. */
  editsProtected: boolean;
  unitInitially: boolean;
  diffInitially: number;
}

export interface ModelTrace {
  end: TerminalEnd;
  roundsRun: number;
  progress: boolean[];
  /** Open blockers counted at each round's decision (disputes and protected paths included). */
  blocking: number[];
  /** Evidence of rounds 2.. (index 0 is round 2). */
  evidence: ProgressEvidence[];
  /** What stood open when the run stopped: raised blockers, unsettled disputes, an unsettled protected path. */
  last: { raised: Raise[]; openDisputes: string[]; protectedOpen: boolean; overturned: Set<string> };
}

const row = (r: Raise, round: number, index: number, overturned: boolean): FindingRow => {
  const reported = {
    severity: r.severity,
    file: FILE,
    line: r.line,
    endLine: r.endLine,
    claim: `claim at ${r.line}`,
    failureScenario: r.concrete ? CONCRETE : VAGUE,
  };
  const gate = gateScenario(reported, CRITERIA, true);
  return {
    id: keyOf(r),
    runId: 'model',
    round,
    reviewer: r.reviewer,
    revision: `rev${round}`,
    callKey: `ck${round}`,
    index,
    reported,
    severity: gate.kind === 'demoted' ? 'MINOR' : r.severity,
    gate,
    refutation: r.refuted ? { decision: 'refuted', by: 'refuter', reason: 'no', callKey: 'ckr' } : null,
    dispute: null,
    settlement: overturned ? { by: 'alice', decision: 'overturned', note: null, at: round } : null,
  };
};

/** Runs the loop to its end. Throws only if the core does something the model cannot follow. */
export function runLoop(cfg: ModelConfig, world: World, maxRounds = 100): ModelTrace {
  const budgets = { rounds: cfg.rounds, wallSeconds: 1800, costUsd: 5 };
  const disputes: string[] = [];
  const overturned = new Set<string>();
  let protectedOpen = cfg.editsProtected;
  const progress: boolean[] = [];
  const blocking: number[] = [];
  const evidence: ProgressEvidence[] = [];
  let unit = cfg.unitInitially;
  let diffLines = cfg.diffInitially;
  let prior: { blockers: PriorBlocker[]; unitBefore: boolean; diffBefore: number; settled: string[] } | null =
    null;

  for (let round = 1; round <= maxRounds; round++) {
    const { raised, complete } = world.review(round);
    const last = { raised, openDisputes: [...disputes], protectedOpen, overturned };
    const rows = raised.map((r, i) => row(r, round, i, overturned.has(keyOf(r))));
    const open = new Map<string, OpenBlocker>();
    const byKey = new Map<string, Raise>();
    rows.forEach((f, i) => {
      if (!isBlocker(f)) return;
      open.set(f.id, { id: f.id, disputed: disputes.includes(f.id), needsSettlement: false });
      byKey.set(f.id, raised[i]!);
    });
    for (const d of disputes) open.set(d, { id: d, disputed: true, needsSettlement: false });
    if (protectedOpen) open.set('protected', { id: 'protected', disputed: false, needsSettlement: true });

    if (prior === null) progress.push(true);
    else {
      const e = evaluateProgress({
        checksBefore: [{ name: 'unit', exitCode: null, passed: prior.unitBefore, tail: '', durationMs: 1 }],
        checksAfter: [{ name: 'unit', exitCode: null, passed: unit, tail: '', durationMs: 1 }],
        priorBlockers: prior.blockers,
        raised: raised.map((r) => ({ reviewer: r.reviewer, file: FILE, line: r.line, endLine: r.endLine })),
        settledSince: prior.settled,
        diffLinesBefore: prior.diffBefore,
        diffLinesAfter: diffLines,
        shrinkRatio: cfg.shrinkRatio,
      });
      evidence.push(e);
      progress.push(e.progress);
    }
    blocking.push(open.size);

    const facts = {
      round,
      budgets,
      hasFixer: cfg.hasFixer,
      reviewsComplete: complete,
      openBlockers: [...open.values()],
      progress: [...progress],
      stopWindow: cfg.stopWindow,
      spentUsd: 0,
    };
    if (!complete) {
      try {
        decideRound(facts);
      } catch (e) {
        if (!(e instanceof IncompleteReviewError)) throw e;
        const end = endForCallFailure('timeout', 'reviewer', 'deadline passed', true);
        return { end, roundsRun: round, progress, blocking, evidence, last };
      }
      throw new Error('decideRound decided on an incomplete review');
    }
    const d = decideRound(facts);
    if (d.kind === 'stop')
      return {
        end: completedEnd(d.outcome, d.stopReason),
        roundsRun: round,
        progress,
        blocking,
        evidence,
        last,
      };

    const asked = d.blockers.map((id) => byKey.get(id)!);
    const acts = world.fix(round, asked);
    const blockers: PriorBlocker[] = asked.map((r) => {
      const act = acts.get(keyOf(r)) ?? { touch: false, dispute: false, citesUnit: false };
      if (act.dispute && !disputes.includes(keyOf(r))) disputes.push(keyOf(r));
      return {
        id: keyOf(r),
        reviewer: r.reviewer,
        file: FILE,
        touchedByFix: act.touch,
        newRange: { start: r.line, end: r.endLine },
        citedChecks: act.citesUnit ? ['unit'] : [],
        disputed: act.dispute,
      };
    });
    const after = world.afterFix(round, [...disputes], protectedOpen);
    const settled: string[] = [];
    for (const s of after.settle) {
      const i = disputes.indexOf(s.key);
      if (i < 0) continue;
      disputes.splice(i, 1);
      if (s.decision === 'overturned') overturned.add(s.key);
      settled.push(s.key);
    }
    if (after.settleProtected && protectedOpen) {
      protectedOpen = false;
      settled.push('protected');
    }
    prior = { blockers, unitBefore: unit, diffBefore: diffLines, settled };
    unit = after.unitPasses;
    diffLines = after.diffLines;
  }
  throw new Error(`the loop did not stop within ${maxRounds} rounds`);
}
