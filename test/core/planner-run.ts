/**
 * The loop's decisions driven through the planners the live stages and
 * replay call (core/review-gating.ts, refute-plan.ts, decide-plan.ts), round
 * by round, for property tests. Nothing here decides: a `World` supplies what
 * reviewers, the refuter, the fixer and people do, this file records it as
 * ledger facts (finding rows with their refutations, disputes and
 * settlements; progress facts), and every gate, refutation, open blocker,
 * progress judgement and stop comes from a planner.
 */
import { IncompleteReviewError, type RoundDecision } from '../../src/core/decide.js';
import { planDecision } from '../../src/core/decide-plan.js';
import { endForCallFailure } from '../../src/core/failure-map.js';
import type { FindingRow } from '../../src/core/ledger.js';
import type { PriorBlocker, ProgressEvidence } from '../../src/core/progress.js';
import { refutationOf, refutationTargets } from '../../src/core/refute-plan.js';
import { findingsToGate, gateFindings } from '../../src/core/review-gating.js';
import { roundStep, WALK_START, type WalkFacts, type WalkPlan } from '../../src/core/round-step.js';
import { CONTROLLER_REVIEWER, isBlocker } from '../../src/core/run-report.js';
import { completedEnd, type TerminalEnd } from '../../src/core/run-state.js';
import type { ReportedFinding, Severity } from '../../src/core/types.js';
import { sha256 } from '../../src/io/hash.js';

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

const reportedOf = (r: Raise): ReportedFinding => ({
  severity: r.severity,
  file: FILE,
  line: r.line,
  endLine: r.endLine,
  claim: `claim at ${r.line}`,
  failureScenario: r.concrete ? CONCRETE : VAGUE,
});

const POLICY = { requireScenario: true, scopeLock: false };
const sameClaim = (f: FindingRow) => `${f.reviewer}|${f.reported.file}|${f.reported.claim}`;
const keyOfRow = (f: FindingRow) =>
  keyOf({ reviewer: f.reviewer, line: f.reported.line, endLine: f.reported.endLine ?? f.reported.line });

/** Runs the loop to its end. Throws only if a planner does something the harness cannot follow. */
export function runLoop(
  cfg: ModelConfig,
  world: World,
  maxRounds = 100,
  onStep?: (plan: WalkPlan) => void,
): ModelTrace {
  const budgets = { rounds: cfg.rounds, wallSeconds: 1800, costUsd: 5 };
  const rows: FindingRow[] = [];
  // A person's overturn of a claim carries onto its later raises, as the decide stage carries it.
  const overturned = new Set<string>();
  let protectedSettled = false;
  const progress: boolean[] = [];
  const blocking: number[] = [];
  const evidence: ProgressEvidence[] = [];
  let unit = cfg.unitInitially;
  let diffLines = cfg.diffInitially;
  let prior: {
    unitBefore: boolean;
    diffBefore: number;
    settled: string[];
    acts: Map<string, FixAct>;
  } | null = null;
  const openDisputes = () => [
    ...new Set(rows.filter((f) => f.dispute !== null && f.settlement === null).map(keyOfRow)),
  ];

  // The one walk of a round (core/round-step.ts): review, refute, decide, then the fix.
  let decision: RoundDecision | undefined;
  let decided = 0;
  const walkFacts: WalkFacts = {
    hasChecks: false,
    recorded: () => false,
    decision: (r) => (r === decided ? decision : undefined),
  };
  let at = WALK_START;
  let raised: Raise[] = [];
  let complete = true;
  let last: ModelTrace['last'] = { raised, openDisputes: [], protectedOpen: false, overturned };
  const raiseOf = new Map<string, Raise>();
  for (;;) {
    const step = roundStep(at, walkFacts);
    at = step.at;
    const plan = step.plan;
    onStep?.(plan);
    if (plan.kind === 'begin') {
      if (plan.round > maxRounds) throw new Error(`the loop did not stop within ${maxRounds} rounds`);
      continue;
    }
    const round = plan.round;
    if (plan.kind === 'stop') {
      const d = plan.decision;
      return {
        end: completedEnd(d.outcome, d.stopReason),
        roundsRun: round,
        progress,
        blocking,
        evidence,
        last,
      };
    }
    if (plan.stage === 'review') {
      ({ raised, complete } = world.review(round));
      const protectedOpen = cfg.editsProtected && !protectedSettled;
      last = { raised, openDisputes: openDisputes(), protectedOpen, overturned };

      // Review: one call per reviewer; the review planner gates every finding.
      const reviewers = [...new Set(raised.map((r) => r.reviewer))];
      const calls = reviewers.map((reviewer) => {
        const mine = raised.filter((r) => r.reviewer === reviewer);
        return {
          reviewer,
          callKey: `r${round}:${reviewer}`,
          reply: { verdict: 'findings' as const, findings: mine.map(reportedOf) },
        };
      });
      const { toGate } = findingsToGate(
        calls,
        () => null,
        (key, i) => `${key}#${i}`,
        sha256,
      );
      raiseOf.clear();
      for (const g of gateFindings(toGate, {}, CRITERIA, POLICY)) {
        const r = raised.filter((x) => x.reviewer === g.reviewer)[g.index];
        if (!r) throw new Error('a gated finding without its raise');
        raiseOf.set(g.id, r);
        const key = keyOf(r);
        rows.push({
          ...g,
          runId: 'model',
          round,
          revision: `rev${round}`,
          refutation: null,
          dispute: null,
          settlement: overturned.has(key)
            ? { by: 'alice', decision: 'overturned', note: null, at: round }
            : null,
        });
      }
      if (cfg.editsProtected)
        rows.push({
          id: `protected:r${round}`,
          runId: 'model',
          round,
          reviewer: CONTROLLER_REVIEWER,
          revision: `rev${round}`,
          callKey: `protected:r${round}`,
          index: 0,
          reported: { severity: 'MAJOR', file: 'revloop.config.yaml', line: 1, claim: 'edits the config' },
          severity: 'MAJOR',
          gate: { kind: 'kept' },
          refutation: null,
          dispute: null,
          settlement: protectedSettled
            ? { by: 'alice', decision: 'overturned', note: null, at: round }
            : null,
        });
    } else if (plan.stage === 'refute') {
      // Refute: the refute planner names the findings to send; the refuter decides each.
      for (const f of refutationTargets(rows, round, { hasRefuter: true, spentUsd: 0, budgets }).targets) {
        const r = raiseOf.get(f.id);
        if (!r) continue;
        f.refutation = refutationOf(
          { decision: r.refuted ? 'refuted' : 'upheld', reason: 'judged' },
          { callKey: `ref:${f.id}`, refuter: 'refuter', modelId: null },
        );
      }
    } else if (plan.stage === 'decide') {
      // Decide: the progress facts of the round, then the decide planner.
      const progressFacts =
        prior === null
          ? null
          : {
              checksBefore: [
                { name: 'unit', exitCode: null, passed: prior.unitBefore, tail: '', durationMs: 1 },
              ],
              checksAfter: [{ name: 'unit', exitCode: null, passed: unit, tail: '', durationMs: 1 }],
              priorBlockers: rows
                .filter((f) => f.round === round - 1 && f.reviewer !== CONTROLLER_REVIEWER && isBlocker(f))
                .map((f): PriorBlocker => {
                  const act = prior?.acts.get(keyOfRow(f));
                  return {
                    id: f.id,
                    reviewer: f.reviewer,
                    file: f.reported.file,
                    touchedByFix: act?.touch ?? false,
                    newRange: { start: f.reported.line, end: f.reported.endLine ?? f.reported.line },
                    citedChecks: act?.citesUnit ? ['unit'] : [],
                    disputed: f.dispute !== null && f.settlement === null,
                  };
                }),
              raised: [],
              settledSince: prior.settled,
              diffLinesBefore: prior.diffBefore,
              diffLinesAfter: diffLines,
              shrinkRatio: cfg.shrinkRatio,
            };
      let planned: ReturnType<typeof planDecision>;
      try {
        planned = planDecision({
          round,
          findings: rows,
          sameClaim,
          progressFacts,
          progressBefore: progress,
          budgets,
          hasFixer: cfg.hasFixer,
          reviewsComplete: complete,
          coverageComplete: undefined,
          stopWindow: cfg.stopWindow,
          spentUsd: 0,
        });
      } catch (e) {
        if (!(e instanceof IncompleteReviewError)) throw e;
        const end = endForCallFailure('timeout', 'reviewer', 'deadline passed', true);
        return { end, roundsRun: round, progress, blocking, evidence, last };
      }
      if (!complete) throw new Error('the decide planner decided on an incomplete review');
      progress.splice(0, progress.length, ...planned.progress);
      if (planned.evidence) evidence.push(planned.evidence);
      blocking.push(planned.openBlockers.length);
      decision = planned.decision;
      decided = round;
    } else if (plan.stage === 'fix') {
      // Fix: the fixer acts on the blockers the decision names; its disputes are recorded on them.
      const d = decision;
      if (d?.kind !== 'fix') throw new Error(`round ${round}: a fix without a decision to fix`);
      const asked = d.blockers.map((id) => {
        const f = rows.find((x) => x.id === id);
        const r = raiseOf.get(id);
        if (!f || !r) throw new Error(`decision named ${id}, which is no reviewer finding of round ${round}`);
        return { f, r };
      });
      const acts = world.fix(
        round,
        asked.map((a) => a.r),
      );
      for (const { f, r } of asked) if (acts.get(keyOf(r))?.dispute) f.dispute = { reason: 'by design' };
      const after = world.afterFix(round, openDisputes(), cfg.editsProtected && !protectedSettled);
      const settled: string[] = [];
      for (const s of after.settle) {
        const waiting = rows.filter(
          (f) => f.dispute !== null && f.settlement === null && keyOfRow(f) === s.key,
        );
        if (waiting.length === 0) continue;
        for (const f of waiting) {
          f.settlement = { by: 'alice', decision: s.decision, note: null, at: round };
          settled.push(f.id);
        }
        if (s.decision === 'overturned') overturned.add(s.key);
      }
      if (after.settleProtected) protectedSettled = true;
      prior = { unitBefore: unit, diffBefore: diffLines, settled, acts };
      unit = after.unitPasses;
      diffLines = after.diffLines;
    }
  }
}
