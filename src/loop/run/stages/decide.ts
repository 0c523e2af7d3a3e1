/**
 * The decide stage: gathers the progress evidence (invariant 8) from git and
 * the ledger, calls the decide planner (core/decide-plan.ts), and records
 * facts and decision together so replay (core/replay.ts) recomputes it with
 * the same planner.
 */

import { roundCoverageComplete } from '../../../core/coverage.js';
import { planDecision } from '../../../core/decide-plan.js';
import { carriedSettlement, decisionCovers } from '../../../core/judged-content.js';
import { findingFingerprint } from '../../../core/keys.js';
import type { FindingRow, Lease } from '../../../core/ledger.js';
import { citedChecks, type PriorBlocker, type ProgressFacts, raisedIn } from '../../../core/progress.js';
import { isBlocker } from '../../../core/run-report.js';
import type { DecideResult } from '../../../core/stage-results.js';
import { changeSettlements } from '../../admission.js';
import type { LineFacts } from '../line-facts.js';
import type { RunContext } from '../run-context.js';
import { CONTROLLER_REVIEWER } from './review.js';

export async function decideStage(
  ctx: RunContext,
  lease: Lease,
  round: number,
  lines: LineFacts,
): Promise<DecideResult> {
  await carryOverSettlements(ctx, lines);
  const { store } = ctx.deps;
  // Facts first (the ledger, git), then the planner (core/decide-plan.ts) decides.
  const findings = await store.listFindings(ctx.run.id);
  const prev = round > 1 ? ctx.stage(round - 1, 'decide')?.result : undefined;
  const progressFacts = round > 1 ? await gatherProgressFacts(ctx, round, findings, lines) : null;
  const review = ctx.stage(round, 'review')?.result;
  const reviewsComplete = review !== undefined;
  const spentUsd = ctx.spent;
  const {
    openBlockers: open,
    evidence,
    progress,
    decision,
  } = planDecision({
    round,
    findings,
    sameClaim: (f) => findingFingerprint(f.reviewer, f.reported.file, f.reported.claim, ctx.deps.hash),
    progressFacts,
    progressBefore: prev?.progress ?? [],
    budgets: ctx.snapshot.budgets,
    hasFixer: ctx.fixer !== null,
    reviewsComplete,
    coverageComplete: roundCoverageComplete(review, ctx.snapshot),
    stopWindow: ctx.snapshot.policy.stopWindow,
    spentUsd,
  });
  const settlements: Record<string, 'upheld' | 'overturned'> = {};
  for (const f of findings) if (f.settlement) settlements[f.id] = f.settlement.decision;
  const result: DecideResult = {
    reviewsComplete,
    openBlockers: open,
    blocking: open.length,
    settlements,
    progressFacts,
    evidence,
    progress,
    spentUsd,
    decision,
  };
  ctx.deps.crashPoint?.('before-complete:decide');
  ctx.noteStage(
    await store.completeStage(lease, { round, stage: 'decide', result, run: { roundsDone: round } }),
  );
  return result;
}

async function gatherProgressFacts(
  ctx: RunContext,
  round: number,
  findings: FindingRow[],
  lines: LineFacts,
): Promise<ProgressFacts> {
  const rounds = await ctx.deps.store.listRounds(ctx.run.id);
  const head = rounds.find((r) => r.round === round)?.head ?? ctx.run.head;
  const prevHead = rounds.find((r) => r.round === round - 1)?.head ?? ctx.snapshot.head;
  const checkNames = ctx.snapshot.checks.map((c) => c.name);
  // Independent git reads, started together (each is one git process).
  const [diffLinesBefore, diffLinesAfter] = await Promise.all([
    lines.changedLines(ctx.snapshot.mergeBase, prevHead),
    lines.changedLines(ctx.snapshot.mergeBase, head),
    lines.prefetch(prevHead, head),
  ]);
  const priorBlockers: PriorBlocker[] = [];
  for (const f of findings) {
    if (f.round !== round - 1 || f.reviewer === CONTROLLER_REVIEWER || !isBlocker(f)) continue;
    const end = f.reported.endLine ?? f.reported.line;
    const mapped = await lines.mapRange(prevHead, head, f.reported.file, f.reported.line, end);
    const text = `${f.reported.claim}\n${f.reported.failureScenario ?? ''}\n${f.reported.violatedClause ?? ''}`;
    priorBlockers.push({
      id: f.id,
      reviewer: f.reviewer,
      file: mapped?.file ?? f.reported.file,
      touchedByFix: await lines.editedBetween(prevHead, head, f.reported.file, f.reported.line, end),
      newRange: mapped?.range ?? null,
      citedChecks: citedChecks(text, checkNames),
      disputed: f.dispute !== null && f.settlement === null,
    });
  }
  const raised = raisedIn(findings, round, CONTROLLER_REVIEWER);
  const checksOf = (r: number) => ctx.stage(r, 'checks')?.result.results ?? null;
  const since = ctx.stage(round - 1, 'decide')?.completedAt ?? 0;
  const settledSince = findings
    .filter((f) => f.dispute !== null && f.settlement !== null && f.settlement.at > since)
    .map((f) => f.id);
  return {
    checksBefore: checksOf(round - 2),
    checksAfter: checksOf(round - 1),
    priorBlockers,
    raised,
    settledSince,
    diffLinesBefore,
    diffLinesAfter,
    shrinkRatio: ctx.snapshot.policy.shrinkRatio,
  };
}

/**
 * Invariant 16: a finding inherits a decision a named person made first-hand in an earlier
 * run of the change only when it is the same claim on the same content at the same place
 * (core/judged-content.ts); the latest such decision wins.
 */
async function carryOverSettlements(ctx: RunContext, lines: LineFacts): Promise<void> {
  const { store, hash } = ctx.deps;
  // Earlier runs' settlements, read once per run: the snapshot froze their digest at admission.
  const prior = await ctx.priorSettlements(() => changeSettlements(ctx.deps, ctx.run.changeKey));
  if (prior.size === 0) return;
  for (const f of await store.listFindings(ctx.run.id)) {
    if (f.settlement || !f.content) continue;
    const candidates = (
      prior.get(findingFingerprint(f.reviewer, f.reported.file, f.reported.claim, hash)) ?? []
    )
      .filter((j) => j.runId !== ctx.run.id && j.content === f.content)
      .sort((a, b) => (b.settlement?.at ?? 0) - (a.settlement?.at ?? 0));
    for (const judged of candidates) {
      const r = judged.reported;
      // Where the judged lines went at this finding's revision (git, once per pair of revisions).
      const now =
        f.reviewer === CONTROLLER_REVIEWER
          ? null
          : await lines
              .mapRange(judged.revision, f.revision, r.file, r.line, r.endLine ?? r.line)
              .catch(() => null);
      if (!decisionCovers(judged, f, now, CONTROLLER_REVIEWER)) continue;
      const when = new Date(judged.settlement?.at ?? 0).toISOString();
      await store.settle(f.id, carriedSettlement(judged, when));
      break;
    }
  }
}
