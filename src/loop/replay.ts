/**
 * Invariant 6: re-running the decision logic over recorded verdicts
 * reproduces the run. Replay rebuilds every finding's gate from the recorded
 * reviewer replies and scope facts, every refutation from the refuter's
 * verdicts, and every round decision from those plus the recorded evidence,
 * using the same pure core, and reports the first divergence.
 */
import { spendOf } from '../core/budget.js';
import { canonicalJson } from '../core/canonical-json.js';
import { roundCoverageComplete } from '../core/coverage.js';
import { decideRound } from '../core/decide.js';
import { findingFingerprint, findingId } from '../core/keys.js';
import type { FindingRow } from '../core/ledger.js';
import { openBlockers } from '../core/open-blockers.js';
import { evaluateProgress, raisedIn } from '../core/progress.js';
import type { RunReport } from '../core/run-report.js';
import type { RefuterReply, ReviewerReply } from '../core/types.js';
import { replayCoverage } from './replay-coverage.js';
import type { DecideResult } from './stages/decide.js';
import type { FixResult } from './stages/fix.js';
import type { RefuteResult } from './stages/refute.js';
import { CONTROLLER_REVIEWER, gateFinding, type ReviewResult } from './stages/review.js';

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
  const stage = (round: number, name: string) =>
    report.stages.find((s) => s.round === round && s.stage === name)?.result;
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
    const review = stage(round, 'review') as ReviewResult | undefined;
    if (!review) break;
    // Issue 17: findings on ignored paths dropped, and coverage, recomputed from the frozen rules.
    const replayed = replayCoverage(review, run.snapshot, (key) => {
      const reply = report.verdicts.find((x) => x.callKey === key)?.reply;
      return reply as ReviewerReply | undefined;
    });
    if (!same(replayed.dropped, review.dropped ?? []))
      return out(
        {
          round,
          stage: 'review',
          what: 'dropped findings',
          recorded: review.dropped,
          recomputed: replayed.dropped,
        },
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
    // Findings from the recorded reviewer verdicts.
    for (const v of review.verdicts) {
      const verdict = report.verdicts.find((x) => x.callKey === v.callKey);
      if (!verdict)
        return out(
          { round, stage: 'review', what: `verdict ${v.callKey} missing`, recorded: v, recomputed: null },
          round,
        );
      const reply = verdict.reply as ReviewerReply;
      for (const [index, f] of reply.findings.entries()) {
        if (replayed.droppedRule(f.file) !== null) continue;
        const id = findingId(run.id, verdict.callKey, index, hash);
        const facts = review.scope[id] ?? { passedAt: null, touchedSincePass: true };
        const gate = gateFinding(f, criteria, facts, policy);
        const rec = recordedById.get(id);
        const severity = gate.kind === 'demoted' ? 'MINOR' : f.severity;
        if (!rec || !same(rec.gate, gate) || rec.severity !== severity) {
          return out(
            {
              round,
              stage: 'review',
              what: `gating of finding ${id}`,
              recorded: rec ? { gate: rec.gate, severity: rec.severity } : null,
              recomputed: { gate, severity },
            },
            round,
          );
        }
        recomputed.push({ ...rec, gate, severity, refutation: null, dispute: null, settlement: null });
      }
    }
    for (const rec of report.findings) {
      if (rec.round === round && rec.reviewer === CONTROLLER_REVIEWER)
        recomputed.push({ ...rec, refutation: null, dispute: null, settlement: null });
    }
    // Refutations from the refuter's verdicts.
    const refute = stage(round, 'refute') as RefuteResult | undefined;
    for (const d of refute?.decisions ?? []) {
      const verdict = report.verdicts.find((x) => x.callKey === d.callKey);
      const f = recomputed.find((x) => x.id === d.findingId);
      if (!verdict || !f)
        return out(
          { round, stage: 'refute', what: `refutation of ${d.findingId}`, recorded: d, recomputed: null },
          round,
        );
      const reply = verdict.reply as RefuterReply;
      f.refutation = {
        decision: reply.decision,
        by: refute?.refuter ?? 'refuter',
        reason: reply.reason,
        callKey: d.callKey,
      };
      const rec = recordedById.get(f.id);
      if (rec?.refutation?.decision !== reply.decision) {
        return out(
          {
            round,
            stage: 'refute',
            what: `refutation of ${f.id}`,
            recorded: rec?.refutation?.decision ?? null,
            recomputed: reply.decision,
          },
          round,
        );
      }
    }
    // The decision from recomputed findings and the recorded evidence.
    const decide = stage(round, 'decide') as DecideResult | undefined;
    if (!decide) break;
    for (const f of recomputed) {
      const s = decide.settlements[f.id];
      f.settlement = s ? { by: '(recorded)', decision: s, note: null, at: 0 } : null;
      f.dispute = null;
      for (let r = 1; r < round; r++) {
        const fix = stage(r, 'fix') as FixResult | undefined;
        const d = fix?.disputes.find((x) => x.findingId === f.id);
        if (d) f.dispute = { reason: d.reason };
      }
    }
    const open = openBlockers(recomputed, round, CONTROLLER_REVIEWER, (f) =>
      findingFingerprint(f.reviewer, f.reported.file, f.reported.claim, hash),
    );
    let progressFlag = true;
    if (decide.progressFacts) {
      const raised = raisedIn(recomputed, round, CONTROLLER_REVIEWER);
      const evidence = evaluateProgress({ ...decide.progressFacts, raised });
      if (!same(evidence, decide.evidence))
        return out(
          {
            round,
            stage: 'decide',
            what: 'progress evidence',
            recorded: decide.evidence,
            recomputed: evidence,
          },
          round,
        );
      progressFlag = evidence.progress;
    }
    const prev = round > 1 ? (stage(round - 1, 'decide') as DecideResult | undefined) : undefined;
    const progress = [...(prev?.progress ?? []), progressFlag];
    // Invariant 12: every verdict recorded before this decision (this round's fix comes after it).
    const spentUsd = spendOf(
      report.verdicts
        .filter((v) => v.round < round || (v.round === round && v.stage !== 'fix'))
        .map((v) => v.costUsd),
    );
    const decision = decideRound({
      round,
      budgets: run.snapshot.budgets,
      hasFixer: run.snapshot.fixer !== null,
      reviewsComplete: true,
      coverageComplete: roundCoverageComplete(
        replayed.coverage ? { coverage: replayed.coverage } : undefined,
        run.snapshot,
      ),
      openBlockers: open,
      progress,
      stopWindow: policy.stopWindow,
      spentUsd,
    });
    decisionsChecked++;
    if (!same(open, decide.openBlockers))
      return out(
        { round, stage: 'decide', what: 'open blockers', recorded: decide.openBlockers, recomputed: open },
        round,
      );
    if (!same(decision, decide.decision))
      return out(
        { round, stage: 'decide', what: 'decision', recorded: decide.decision, recomputed: decision },
        round,
      );
    last = decision;
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
