/**
 * The decide stage: gathers the progress evidence (invariant 8) from git and
 * the ledger, calls the decide planner (core/decide-plan.ts), and records
 * facts and decision together so replay (core/replay.ts) recomputes it with
 * the same planner.
 */

import { roundCoverageComplete } from '../../../core/coverage.js';
import { planDecision } from '../../../core/decide-plan.js';
import { carriedSettlement, decisionCovers, settlementCandidates } from '../../../core/judged-content.js';
import { findingFingerprint } from '../../../core/keys.js';
import type { FindingRow, Lease, Settlement } from '../../../core/ledger.js';
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
  const { store } = ctx.deps;
  // Facts first (the ledger, git), then the planner (core/decide-plan.ts) decides.
  const findings = await store.listFindings(ctx.run.id);
  // Inherited settlements count in this decision and are recorded with it, in one completion.
  const carried = await inheritedSettlements(ctx, findings, lines);
  for (const { findingId, settlement } of carried) {
    const f = findings.find((x) => x.id === findingId);
    if (f) f.settlement = settlement;
  }
  const prev = round > 1 ? ctx.ledger.stage(round - 1, 'decide')?.result : undefined;
  const progressFacts = round > 1 ? await gatherProgressFacts(ctx, round, findings, lines) : null;
  const review = ctx.ledger.stage(round, 'review')?.result;
  const reviewsComplete = review !== undefined;
  const spentUsd = ctx.ledger.spent();
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
  ctx.ledger.noteStage(
    await store.completeStage(lease, {
      round,
      stage: 'decide',
      result,
      settlements: carried,
      run: { roundsDone: round },
    }),
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
  const checksOf = (r: number) => ctx.ledger.stage(r, 'checks')?.result.results ?? null;
  const since = ctx.ledger.stage(round - 1, 'decide')?.completedAt ?? 0;
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
 * run of the change only when it is the same claim on the same content at the same place;
 * the latest such decision wins (core/judged-content.ts names the candidates and decides
 * which covers; here git says where each candidate's lines went).
 */
async function inheritedSettlements(
  ctx: RunContext,
  findings: readonly FindingRow[],
  lines: LineFacts,
): Promise<{ findingId: string; settlement: Settlement }[]> {
  const { hash } = ctx.deps;
  // Earlier runs' settlements, read once per run: the snapshot froze their digest at admission.
  const prior = await ctx.priorSettlements(() => changeSettlements(ctx.deps, ctx.run.changeKey));
  const out: { findingId: string; settlement: Settlement }[] = [];
  if (prior.size === 0) return out;
  for (const f of findings) {
    const fingerprint = findingFingerprint(f.reviewer, f.reported.file, f.reported.claim, hash);
    for (const judged of settlementCandidates(f, prior, fingerprint)) {
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
      out.push({ findingId: f.id, settlement: carriedSettlement(judged, when) });
      break;
    }
  }
  return out;
}
