/**
 * Invariant 6: re-running the decision logic over recorded verdicts
 * reproduces the run. Replay is a pure fold over a run's recorded facts
 * (replies, scope facts, progress facts, settlements, spend) that calls the
 * planners the live stages call (review-gating.ts, refute-plan.ts,
 * decide-plan.ts) and reports the first place a recomputed decision differs
 * from the recorded one. `revloop replay` loads the facts and prints this.
 */
import { spendOf } from './budget.js';
import { canonicalJson } from './canonical-json.js';
import { roundCoverageComplete } from './coverage.js';
import { planDecision } from './decide-plan.js';
import { findingFingerprint, findingId } from './keys.js';
import type { FindingRow } from './ledger.js';
import { refutationOf } from './refute-plan.js';
import { replayCoverage } from './replay-coverage.js';
import { findingsToGate, gateFindings, type ReviewedCall } from './review-gating.js';
import { CONTROLLER_REVIEWER, type RunReport } from './run-report.js';
import { type DecideResult, isRoleVerdict, stage as stageOf, type VerdictRowOf } from './stage-results.js';
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

const same = (a: unknown, b: unknown) => canonicalJson(a) === canonicalJson(b);

export function replayRun(report: RunReport, criteria: string, hash: (s: string) => string): ReplayResult {
  const { run } = report;
  const policy = run.snapshot.policy;
  const stage = <S extends Stage>(round: number, name: S) => stageOf(report.stages, round, name);
  const verdictOf = <R extends Role>(key: string, role: R): VerdictRowOf<R> | undefined => {
    const v = report.verdicts.find((x) => x.callKey === key);
    return v && isRoleVerdict(v, role) ? v : undefined;
  };
  const recordedById = new Map(report.findings.map((f) => [f.id, f]));
  const recomputed: FindingRow[] = [];
  let decisionsChecked = 0;
  let last: DecideResult['decision'] | null = null;
  const out = (d: Divergence | null, rounds: number): ReplayResult => ({
    runId: run.id,
    identical: d === null,
    rounds,
    decisionsChecked,
    findingsChecked: recomputed.length,
    divergence: d,
  });
  const rounds = [...report.rounds].sort((a, b) => a.round - b.round);
  for (const { round } of rounds) {
    const review = stage(round, 'review');
    if (!review) break;
    // The review planner over the recorded replies: dropped findings (issue 17) and the gates.
    const calls: ReviewedCall[] = review.verdicts.flatMap((v) => {
      const verdict = verdictOf(v.callKey, 'reviewer');
      return verdict ? [{ reviewer: v.reviewer, callKey: v.callKey, reply: verdict.reply }] : [];
    });
    const replayed = replayCoverage(review, run.snapshot);
    const { toGate, dropped } = findingsToGate(calls, replayed.droppedRule, (key, index) =>
      findingId(run.id, key, index, hash),
    );
    if (!same(dropped, review.dropped ?? []))
      return out(
        { round, stage: 'review', what: 'dropped findings', recorded: review.dropped, recomputed: dropped },
        round,
      );
    if (review.coverage && !same(replayed.coverage, review.coverage))
      return out(
        {
          round,
          stage: 'review',
          what: 'coverage',
          recorded: review.coverage,
          recomputed: replayed.coverage,
        },
        round,
      );
    const gated = gateFindings(toGate, review.scope, criteria, policy);
    // In recorded order: the first call whose verdict is missing, or the first finding gated otherwise.
    for (const v of review.verdicts) {
      if (!verdictOf(v.callKey, 'reviewer'))
        return out(
          { round, stage: 'review', what: `verdict ${v.callKey} missing`, recorded: v, recomputed: null },
          round,
        );
      for (const g of gated.filter((x) => x.callKey === v.callKey)) {
        const rec = recordedById.get(g.id);
        if (!rec || !same(rec.gate, g.gate) || rec.severity !== g.severity) {
          return out(
            {
              round,
              stage: 'review',
              what: `gating of finding ${g.id}`,
              recorded: rec ? { gate: rec.gate, severity: rec.severity } : null,
              recomputed: { gate: g.gate, severity: g.severity },
            },
            round,
          );
        }
        recomputed.push({
          ...rec,
          gate: g.gate,
          severity: g.severity,
          refutation: null,
          dispute: null,
          settlement: null,
        });
      }
    }
    for (const rec of report.findings) {
      if (rec.round === round && rec.reviewer === CONTROLLER_REVIEWER)
        recomputed.push({ ...rec, refutation: null, dispute: null, settlement: null });
    }
    // The refute planner over the refuter's verdicts.
    const refute = stage(round, 'refute');
    for (const d of refute?.decisions ?? []) {
      const verdict = verdictOf(d.callKey, 'refuter');
      const f = recomputed.find((x) => x.id === d.findingId);
      if (!verdict || !f)
        return out(
          { round, stage: 'refute', what: `refutation of ${d.findingId}`, recorded: d, recomputed: null },
          round,
        );
      f.refutation = refutationOf(verdict.reply, {
        callKey: d.callKey,
        refuter: refute?.refuter ?? 'refuter',
        modelId: verdict.modelId,
      });
      const rec = recordedById.get(f.id);
      if (rec?.refutation?.decision !== f.refutation.decision) {
        return out(
          {
            round,
            stage: 'refute',
            what: `refutation of ${f.id}`,
            recorded: rec?.refutation?.decision ?? null,
            recomputed: f.refutation.decision,
          },
          round,
        );
      }
    }
    // The decide planner over the recomputed findings and the recorded evidence.
    const decide = stage(round, 'decide');
    if (!decide) break;
    for (const f of recomputed) {
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
      findings: recomputed,
      sameClaim: (f) => findingFingerprint(f.reviewer, f.reported.file, f.reported.claim, hash),
      progressFacts: decide.progressFacts,
      progressBefore: prev?.progress ?? [],
      budgets: run.snapshot.budgets,
      hasFixer: run.snapshot.fixer !== null,
      reviewsComplete: true,
      coverageComplete: roundCoverageComplete(
        replayed.coverage ? { coverage: replayed.coverage } : undefined,
        run.snapshot,
      ),
      stopWindow: policy.stopWindow,
      // Invariant 12: every verdict recorded before this decision (this round's fix comes after it).
      spentUsd: spendOf(
        report.verdicts
          .filter((v) => v.round < round || (v.round === round && v.stage !== 'fix'))
          .map((v) => v.costUsd),
      ),
    });
    if (decide.progressFacts && !same(plan.evidence, decide.evidence))
      return out(
        {
          round,
          stage: 'decide',
          what: 'progress evidence',
          recorded: decide.evidence,
          recomputed: plan.evidence,
        },
        round,
      );
    decisionsChecked++;
    if (!same(plan.openBlockers, decide.openBlockers))
      return out(
        {
          round,
          stage: 'decide',
          what: 'open blockers',
          recorded: decide.openBlockers,
          recomputed: plan.openBlockers,
        },
        round,
      );
    if (!same(plan.decision, decide.decision))
      return out(
        { round, stage: 'decide', what: 'decision', recorded: decide.decision, recomputed: plan.decision },
        round,
      );
    last = plan.decision;
  }
  if (run.status === 'completed') {
    const outcome = last?.kind === 'stop' ? { outcome: last.outcome, stopReason: last.stopReason } : null;
    if (!outcome || outcome.outcome !== run.outcome || outcome.stopReason !== run.stopReason) {
      return out(
        {
          round: rounds.length,
          stage: 'end',
          what: 'outcome',
          recorded: { outcome: run.outcome, stopReason: run.stopReason },
          recomputed: outcome,
        },
        rounds.length,
      );
    }
  }
  return out(null, rounds.length);
}
