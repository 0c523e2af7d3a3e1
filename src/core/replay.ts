/**
 * Invariant 6: re-running the decision logic over recorded verdicts
 * reproduces the run. Replay is a pure fold over a run's recorded facts
 * (replies, scope facts, progress facts, settlements, spend) that calls the
 * planners the live stages call (review-gating.ts, refute-plan.ts,
 * decide-plan.ts) and reports the first place a recomputed decision differs
 * from the recorded one. `revloop replay` loads the facts and prints this.
 * Each stage has one step below; a step returns the first divergence it
 * finds, or null and leaves its recomputed facts in the fold's state.
 */
import { spendOf } from './budget.js';
import { canonicalJson, type Hash } from './canonical-json.js';
import { roundCoverageComplete } from './coverage.js';
import { planDecision } from './decide-plan.js';
import { findingFingerprint, findingId } from './keys.js';
import type { FindingRow } from './ledger.js';
import { memoryJudge } from './refute-memory.js';
import { refutationOf, refutationTargets } from './refute-plan.js';
import { type ReplayedCoverage, replayCoverage } from './replay-coverage.js';
import { findingsToGate, gateFindings, type ReviewedCall } from './review-gating.js';
import { roundStep, WALK_START, type WalkFacts } from './round-step.js';
import { CONTROLLER_REVIEWER, type RunReport } from './run-report.js';
import { samplesWanted } from './samples.js';
import {
  type DecideResult,
  isRoleVerdict,
  type RefuteResult,
  type ReviewResult,
  stage as stageOf,
  type VerdictRowOf,
} from './stage-results.js';
import type { Role, Stage } from './types.js';

export interface Divergence {
  round: number;
  stage: string;
  what: string;
  recorded: unknown;
  recomputed: unknown;
}

export interface ReplayResult {
  runId: string;
  identical: boolean;
  rounds: number;
  decisionsChecked: number;
  findingsChecked: number;
  divergence: Divergence | null;
}

/** What the fold carries from round to round. */
interface Fold {
  readonly report: RunReport;
  readonly criteria: string;
  readonly hash: Hash;
  readonly recordedById: ReadonlyMap<string, FindingRow>;
  /** The run's findings as the planners recompute them, in recorded order. */
  readonly recomputed: FindingRow[];
  decisionsChecked: number;
  last: DecideResult['decision'] | null;
}

const same = (a: unknown, b: unknown) => canonicalJson(a) === canonicalJson(b);

const diverged = (round: number, stage: string, what: string, recorded: unknown, recomputed: unknown) => ({
  round,
  stage,
  what,
  recorded,
  recomputed,
});

export function replayRun(report: RunReport, criteria: string, hash: Hash): ReplayResult {
  const fold: Fold = {
    report,
    criteria,
    hash,
    recordedById: new Map(report.findings.map((f) => [f.id, f])),
    recomputed: [],
    decisionsChecked: 0,
    last: null,
  };
  const rounds = report.rounds.length;
  const divergence = replayRounds(fold) ?? replayOutcome(fold, rounds);
  return {
    runId: report.run.id,
    identical: divergence === null,
    rounds: divergence?.round ?? rounds,
    decisionsChecked: fold.decisionsChecked,
    findingsChecked: fold.recomputed.length,
    divergence,
  };
}

/**
 * The one walk of a round (round-step.ts) over the recorded stages: each
 * stage the run recorded is replayed in the order it ran, and the walk ends
 * where the run's record does, or at the decision that stopped it.
 */
function replayRounds(fold: Fold): Divergence | null {
  const { report } = fold;
  const recordedStage = <S extends Stage>(round: number, name: S) => stageOf(report.stages, round, name);
  const facts: WalkFacts = {
    hasChecks: report.run.snapshot.checks.length > 0,
    // Nothing is skipped: replay visits every stage the walk plans.
    recorded: () => false,
    decision: (round) => recordedStage(round, 'decide')?.decision,
  };
  let at = WALK_START;
  let replayed: ReplayedCoverage | undefined;
  for (;;) {
    const step = roundStep(at, facts);
    at = step.at;
    const { plan } = step;
    if (plan.kind === 'stop') return null;
    if (plan.kind === 'begin') continue;
    const { round } = plan;
    let d: Divergence | null = null;
    if (plan.stage === 'review') {
      const review = recordedStage(round, 'review');
      if (!review) return null;
      replayed = replayCoverage(review, report.run.snapshot);
      d = replayReview(fold, round, review, replayed);
    } else if (plan.stage === 'refute') {
      d = replayRefute(fold, round);
    } else if (plan.stage === 'decide') {
      const decide = recordedStage(round, 'decide');
      if (!decide || !replayed) return null;
      d = replayDecide(fold, round, decide, replayed);
    }
    // A fix and the checks are git and process facts, not decisions: recorded, not recomputed.
    if (d) return d;
  }
}

function verdictOf<R extends Role>(fold: Fold, key: string, role: R): VerdictRowOf<R> | undefined {
  const v = fold.report.verdicts.find((x) => x.callKey === key);
  return v && isRoleVerdict(v, role) ? v : undefined;
}

/** The review planner over the recorded replies: dropped findings, coverage and the gates. */
function replayReview(
  fold: Fold,
  round: number,
  review: ReviewResult,
  replayed: ReplayedCoverage,
): Divergence | null {
  const { run } = fold.report;
  const calls: ReviewedCall[] = review.verdicts.flatMap((v) => {
    const verdict = verdictOf(fold, v.callKey, 'reviewer');
    return verdict
      ? [
          {
            reviewer: v.reviewer,
            callKey: v.callKey,
            reply: verdict.reply,
            chunk: v.chunk?.index,
            sample: v.sample,
          },
        ]
      : [];
  });
  const { toGate, dropped } = findingsToGate(
    calls,
    replayed.droppedRule,
    (key, index) => findingId(run.id, key, index, fold.hash),
    review.onePerFingerprint ? fold.hash : null,
  );
  if (!same(dropped, review.dropped ?? []))
    return diverged(round, 'review', 'dropped findings', review.dropped, dropped);
  if (review.coverage && !same(replayed.coverage, review.coverage))
    return diverged(round, 'review', 'coverage', review.coverage, replayed.coverage);
  const drawn = samplesDrawn(fold, review, calls, replayed);
  if (drawn) return diverged(round, 'review', drawn.what, drawn.recorded, drawn.recomputed);
  const rules = (name: string) => run.snapshot.reviewers.find((r) => r.name === name)?.samples;
  const gated = gateFindings(toGate, review.scope, fold.criteria, run.snapshot.policy, rules);
  // In recorded order: the first call whose verdict is missing, or the first finding gated otherwise.
  for (const v of review.verdicts) {
    if (!verdictOf(fold, v.callKey, 'reviewer'))
      return diverged(round, 'review', `verdict ${v.callKey} missing`, v, null);
    for (const g of gated.filter((x) => x.callKey === v.callKey)) {
      const rec = fold.recordedById.get(g.id);
      if (
        !rec ||
        !same(rec.gate, g.gate) ||
        rec.severity !== g.severity ||
        !same(rec.reproduction ?? null, g.reproduction ?? null)
      ) {
        return diverged(
          round,
          'review',
          `gating of finding ${g.id}`,
          rec ? { gate: rec.gate, severity: rec.severity, reproduction: rec.reproduction ?? null } : null,
          { gate: g.gate, severity: g.severity, reproduction: g.reproduction ?? null },
        );
      }
      fold.recomputed.push({
        ...rec,
        gate: g.gate,
        severity: g.severity,
        refutation: null,
        dispute: null,
        settlement: null,
      });
    }
  }
  for (const rec of fold.report.findings) {
    if (rec.round === round && rec.reviewer === CONTROLLER_REVIEWER)
      fold.recomputed.push({ ...rec, refutation: null, dispute: null, settlement: null });
  }
  return null;
}

/**
 * Repeat sampling: each sampled prompt drew as many samples as its rule
 * wanted once its first reply was in (`on: blockers` draws the rest only
 * after a blocker), so a run that skipped or added a sample diverges.
 */
function samplesDrawn(
  fold: Fold,
  review: ReviewResult,
  calls: readonly ReviewedCall[],
  replayed: ReplayedCoverage,
): { what: string; recorded: number; recomputed: number } | null {
  const { snapshot } = fold.report.run;
  for (const first of calls) {
    if (first.sample !== 0) continue;
    const rule = snapshot.reviewers.find((r) => r.name === first.reviewer)?.samples;
    const wanted = samplesWanted(rule, first.reply, replayed.droppedRule, fold.criteria, snapshot.policy);
    const drawn = review.verdicts.filter(
      (v) => v.reviewer === first.reviewer && v.chunk?.index === first.chunk && v.sample !== undefined,
    ).length;
    if (drawn !== wanted)
      return {
        what: `samples of ${first.reviewer}${first.chunk === undefined ? '' : ` chunk ${first.chunk}`}`,
        recorded: drawn,
        recomputed: wanted,
      };
  }
  return null;
}

/** The refute planner over the recorded memory facts and the refuter's verdicts. */
function replayRefute(fold: Fold, round: number): Divergence | null {
  const refute = stageOf(fold.report.stages, round, 'refute');
  const fromMemory = replayMemory(fold, round, refute);
  if (fromMemory) return fromMemory;
  for (const d of refute?.decisions ?? []) {
    const verdict = verdictOf(fold, d.callKey, 'refuter');
    const f = fold.recomputed.find((x) => x.id === d.findingId);
    if (!verdict || !f) return diverged(round, 'refute', `refutation of ${d.findingId}`, d, null);
    f.refutation = refutationOf(verdict.reply, {
      callKey: d.callKey,
      refuter: refute?.refuter ?? 'refuter',
      modelId: verdict.modelId,
    });
    const rec = fold.recordedById.get(f.id);
    if (rec?.refutation?.decision !== f.refutation.decision)
      return diverged(
        round,
        'refute',
        `refutation of ${f.id}`,
        rec?.refutation?.decision ?? null,
        f.refutation.decision,
      );
  }
  return null;
}

/** Which blockers the memory answered (core/refute-memory.ts), from the facts the stage recorded. */
function replayMemory(fold: Fold, round: number, refute: RefuteResult | undefined): Divergence | null {
  if (!refute) return null;
  const { run, verdicts } = fold.report;
  const snap = run.snapshot;
  const { remembered } = refutationTargets(fold.recomputed, round, {
    hasRefuter: snap.refuter !== null,
    spentUsd: spendOf(
      verdicts
        .filter((v) => v.round < round || (v.round === round && v.stage === 'review'))
        .map((v) => v.costUsd),
    ),
    budgets: snap.budgets,
    maxPerReply: snap.review?.maxRefutedPerReply,
    memory: { facts: refute.memory ?? [], judge: memoryJudge(run), hash: fold.hash },
  });
  const recomputed = remembered.map((r) => ({ findingId: r.findingId, origin: r.refutation.origin }));
  if (!same(recomputed, refute.remembered ?? []))
    return diverged(round, 'refute', 'refutations answered from memory', refute.remembered ?? [], recomputed);
  for (const { findingId, refutation } of remembered) {
    const f = fold.recomputed.find((x) => x.id === findingId);
    const rec = fold.recordedById.get(findingId);
    if (!f || !same(rec?.refutation ?? null, refutation))
      return diverged(round, 'refute', `refutation of ${findingId}`, rec?.refutation ?? null, refutation);
    f.refutation = refutation;
  }
  return null;
}

/** The decide planner over the recomputed findings and the recorded evidence. */
function replayDecide(
  fold: Fold,
  round: number,
  decide: DecideResult,
  replayed: ReplayedCoverage,
): Divergence | null {
  const { report } = fold;
  const { run } = report;
  const stage = <S extends Stage>(r: number, name: S) => stageOf(report.stages, r, name);
  for (const f of fold.recomputed) {
    const s = decide.settlements[f.id];
    f.settlement = s ? { by: '(recorded)', decision: s, note: null, at: 0 } : null;
    f.dispute = null;
    for (let r = 1; r < round; r++) {
      const d = stage(r, 'fix')?.disputes.find((x) => x.findingId === f.id);
      if (d) f.dispute = { reason: d.reason };
    }
  }
  const prev = round > 1 ? stage(round - 1, 'decide') : undefined;
  const plan = planDecision({
    round,
    findings: fold.recomputed,
    sameClaim: (f) => findingFingerprint(f.reviewer, f.reported.file, f.reported.claim, fold.hash),
    progressFacts: decide.progressFacts,
    progressBefore: prev?.progress ?? [],
    budgets: run.snapshot.budgets,
    hasFixer: run.snapshot.fixer !== null,
    reviewsComplete: true,
    coverageComplete: roundCoverageComplete(
      replayed.coverage ? { coverage: replayed.coverage } : undefined,
      run.snapshot,
    ),
    stopWindow: run.snapshot.policy.stopWindow,
    // Invariant 12: every verdict recorded before this decision (this round's fix comes after it).
    spentUsd: spendOf(
      report.verdicts
        .filter((v) => v.round < round || (v.round === round && v.stage !== 'fix'))
        .map((v) => v.costUsd),
    ),
  });
  if (decide.progressFacts && !same(plan.evidence, decide.evidence))
    return diverged(round, 'decide', 'progress evidence', decide.evidence, plan.evidence);
  fold.decisionsChecked++;
  if (!same(plan.openBlockers, decide.openBlockers))
    return diverged(round, 'decide', 'open blockers', decide.openBlockers, plan.openBlockers);
  if (!same(plan.decision, decide.decision))
    return diverged(round, 'decide', 'decision', decide.decision, plan.decision);
  fold.last = plan.decision;
  return null;
}

/** A completed run's outcome is the last decision's stop. */
function replayOutcome(fold: Fold, rounds: number): Divergence | null {
  const { run } = fold.report;
  if (run.status !== 'completed') return null;
  const last = fold.last;
  const outcome = last?.kind === 'stop' ? { outcome: last.outcome, stopReason: last.stopReason } : null;
  if (outcome && outcome.outcome === run.outcome && outcome.stopReason === run.stopReason) return null;
  return diverged(rounds, 'end', 'outcome', { outcome: run.outcome, stopReason: run.stopReason }, outcome);
}
