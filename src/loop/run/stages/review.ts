/**
 * The review stage: every configured reviewer on the round's revision (side
 * by side, one call per chunk of a large diff, recorded in configured order:
 * review-calls.ts); then the scope facts and judged content from git, which
 * the review planner (core/review-gating.ts: invariants 9 and 11) gates; then
 * the findings and the completion mark in one transaction.
 */
import { type BrokenCheck, brokenChecks } from '../../../core/check-blockers.js';
import type { DiffSection } from '../../../core/chunks.js';
import { shownAsBinary, textHiddenAsBinary } from '../../../core/hidden-text.js';
import { blobDigest, linesDigest } from '../../../core/judged-content.js';
import { findingId } from '../../../core/keys.js';
import type { Lease } from '../../../core/ledger.js';
import { findingsToGate, gateFindings } from '../../../core/review-gating.js';
import { CONTROLLER_REVIEWER } from '../../../core/run-report.js';
import { passCandidates, type RecordedReview, type ScopeFacts } from '../../../core/scope-lock.js';
import { type ChecksResult, type ReviewResult, reviewerVerdicts } from '../../../core/stage-results.js';
import { isBlockingSeverity, type ReportedFinding, type ReviewerSpec } from '../../../core/types.js';
import type { NewFinding } from '../../../ports/store.js';
import { besideNextCall } from '../../calls/index.js';
import { checkoutForReaders } from '../../checkout/index.js';
import { checkFrozen, startFreshDigest } from '../freeze.js';
import type { LineFacts } from '../line-facts.js';
import { type ReviewCallResult, reviewCalls, roundCoverage } from '../review-calls.js';
import { chunkLimit, planReview, type ReviewPlan } from '../review-plan.js';
import type { RunContext } from '../run-context.js';

export { CONTROLLER_REVIEWER };

export async function reviewStage(
  ctx: RunContext,
  lease: Lease,
  round: number,
  diff: string,
  expectedDigest: string,
  lines: LineFacts,
  /**
   * Started once the last reviewer's call is under way, where its wait hides
   * it (not at all when that verdict was recorded before: the caller then
   * starts it itself).
   */
  besideLastCall?: () => void,
): Promise<void> {
  const head = ctx.run.head;
  await checkFrozen(ctx, expectedDigest);
  const checkout = checkoutForReaders(
    ctx,
    head,
    ctx.reviewers.map((r) => r.reviewer),
    // Only the fixer and the checks need the files after the review (a refuter that reads them readies them).
    ctx.fixer !== null || ctx.loaded.config.checks.length > 0,
  );
  await checkout.ready;
  const fresh = startFreshDigest(ctx);
  // Every round asks which protected paths its revision edits (merge base..revision, so a fix
  // commit that edits the config, the criteria or a protected file needs a person too): a read
  // of two commits, done beside the first call.
  const protectedRead = besideNextCall(ctx.sideWork, () => editedProtectedPaths(ctx, head));
  // The round's calls (one per reviewer and chunk) run side by side, recorded in configured order.
  const editedByFix = await ctx.facts.editedByFix(head);
  const sections = await ctx.facts.promptSections(head, diff, chunkLimit(ctx.snapshot));
  const plan = planReview(ctx.snapshot, diff, sections, editedByFix);
  ctx.facts.noteBlobIds(head, plan.blobIds);
  const hiddenRead = besideNextCall(ctx.sideWork, () => textShownAsBinary(ctx, head, sections, plan));
  const got = await reviewCalls(ctx, lease, round, head, plan, checkout, besideLastCall);
  // Started now, awaited before recording: it runs beside the gating and scope reads.
  const touched = checkout.settle();

  const { findings, scope, dropped } = await gateReplies(ctx, round, head, got, plan, lines);
  const protectedEdited = await protectedRead.get();
  for (const path of protectedEdited)
    findings.push(protectedFinding(ctx, round, head, path, await judgedBlob(ctx, head, path)));
  for (const path of await hiddenRead.get())
    findings.push(hiddenTextFinding(ctx, round, head, path, await judgedBlob(ctx, head, path)));
  for (const broken of brokenChecks(checksOfRun(ctx, round), head))
    findings.push(brokenCheckFinding(ctx, round, head, broken));

  await Promise.all([checkFrozen(ctx, expectedDigest, 'record', fresh), touched]);
  const result: ReviewResult = {
    head,
    verdicts: got.map(({ name, verdict, chunk, sample }) => ({
      reviewer: name,
      callKey: verdict.callKey,
      verdict: verdict.reply.verdict,
      modelId: verdict.modelId,
      ...(chunk ? { chunk } : {}),
      ...(sample !== undefined ? { sample } : {}),
    })),
    scope,
    coverage: roundCoverage(ctx.reviewers, plan, got),
    dropped,
    ...(editedByFix.length > 0 ? { editedByFix } : {}),
    // Only a chunked or sampled round has several calls of one reviewer to fold (any other reads as before).
    ...(plan.chunks.length > 1 || got.some((g) => g.sample !== undefined)
      ? { onePerFingerprint: true as const }
      : {}),
    protectedEdited,
    reviewsComplete: true,
  };
  // No run spend here: the store adds every cent as it is recorded, paid rejections included (invariant 12).
  ctx.deps.crashPoint?.('before-complete:review');
  ctx.ledger.noteStage(
    await ctx.deps.store.completeStage(lease, {
      round,
      stage: 'review',
      result,
      findings,
    }),
  );
}

/**
 * The reviewers' findings of the round, gated: facts first (git: the scope lock's
 * passed revisions and lines, each finding's judged content), then the planner
 * (core/review-gating.ts) decides every gate.
 */
async function gateReplies(
  ctx: RunContext,
  round: number,
  head: string,
  got: readonly ReviewCallResult[],
  plan: ReviewPlan,
  lines: LineFacts,
): Promise<{ findings: NewFinding[]; scope: Record<string, ScopeFacts>; dropped: ReviewResult['dropped'] }> {
  const passes = await latestPasses(ctx, head);
  const calls = got.map(({ name, verdict, chunk, sample }) => ({
    reviewer: name,
    callKey: verdict.callKey,
    reply: verdict.reply,
    chunk: chunk?.index,
    sample,
  }));
  const { toGate, dropped } = findingsToGate(
    calls,
    plan.isIgnored,
    (key, index) => findingId(ctx.run.id, key, index, ctx.deps.hash),
    ctx.deps.hash,
  );
  const scope: Record<string, ScopeFacts> = {};
  const content: Record<string, string> = {};
  for (const f of toGate) {
    scope[f.id] = await scopeFacts(lines, passes.get(f.reviewer) ?? null, head, f.reported);
    content[f.id] = await judgedLines(ctx, head, f.reported);
  }
  const rules = (name: string) => ctx.snapshot.reviewers.find((r) => r.name === name)?.samples;
  const findings: NewFinding[] = gateFindings(toGate, scope, ctx.criteria, ctx.snapshot.policy, rules).map(
    (g) => ({
      ...g,
      runId: ctx.run.id,
      round,
      revision: head,
      content: content[g.id] ?? null,
    }),
  );
  return { findings, scope, dropped };
}

async function scopeFacts(
  lines: LineFacts,
  passedAt: string | null,
  head: string,
  f: ReportedFinding,
): Promise<ScopeFacts> {
  if (passedAt === null || !isBlockingSeverity(f.severity)) return { passedAt, touchedSincePass: true };
  const touched = await lines.touchedSince(passedAt, head, f.file, f.line, f.endLine ?? f.line);
  return { passedAt, touchedSincePass: touched };
}

/**
 * For each reviewer, the latest earlier revision of this change it passed that is an ancestor
 * of `head`: passes by the same name and identity only (core/scope-lock.ts decides which).
 */
async function latestPasses(ctx: RunContext, head: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  if (!ctx.snapshot.policy.scopeLock) return out;
  const { store } = ctx.deps;
  const verdicts = reviewerVerdicts(await store.listVerdictsForChange(ctx.run.changeKey));
  const identities = new Map<string, ReadonlyMap<string, string>>();
  for (const runId of new Set(verdicts.map((v) => v.runId))) {
    const snapshot = runId === ctx.run.id ? ctx.snapshot : (await store.getRun(runId))?.snapshot;
    identities.set(runId, identitiesOf(snapshot?.reviewers ?? []));
  }
  const recorded: RecordedReview[] = verdicts.map((v) => ({
    reviewer: v.reviewer,
    revision: v.revision,
    verdict: v.reply.verdict,
    recordedAt: v.recordedAt,
    identity: identities.get(v.runId)?.get(v.reviewer) ?? null,
  }));
  const candidates = passCandidates(recorded, identitiesOf(ctx.snapshot.reviewers), head);
  for (const [reviewer, revisions] of candidates) {
    for (const revision of revisions) {
      if (!(await ctx.facts.isAncestor(revision, head))) continue;
      out.set(reviewer, revision);
      break;
    }
  }
  return out;
}

const identitiesOf = (specs: readonly ReviewerSpec[]): Map<string, string> =>
  new Map(specs.flatMap((r) => (r.identityDigest ? [[r.name, r.identityDigest] as const] : [])));

async function editedProtectedPaths(ctx: RunContext, head: string): Promise<string[]> {
  const s = ctx.snapshot;
  const changed = await ctx.deps.git.changedFiles(ctx.deps.repoRoot, s.mergeBase, head, s.protectedPaths);
  const touched = new Set(changed.flatMap((c) => [c.path, c.oldPath]));
  return s.protectedPaths.filter((p) => touched.has(p));
}

/** Invariant 16: what a reviewer's finding judged, the text of its lines at the revision. */
async function judgedLines(ctx: RunContext, head: string, f: ReportedFinding): Promise<string> {
  const blob = await ctx.facts.readBlob(head, f.file).catch(() => null);
  return linesDigest(f.file, blob?.toString('utf8') ?? null, f.line, f.endLine ?? f.line, ctx.deps.hash);
}

/** Invariant 16: what a protected-path finding judged, the path's blob at the revision. */
async function judgedBlob(ctx: RunContext, head: string, path: string): Promise<string> {
  const blob = await ctx.facts.readBlob(head, path).catch(() => null);
  return blobDigest(path, blob?.toString('base64') ?? null, ctx.deps.hash);
}

function protectedFinding(
  ctx: RunContext,
  round: number,
  head: string,
  path: string,
  content: string,
): NewFinding {
  // One per round and path: each round checks its own revision.
  const callKey = round === 1 ? `protected:${path}` : `protected:r${round}:${path}`;
  return controllerFinding(ctx, round, head, callKey, content, {
    severity: 'MAJOR',
    file: path,
    line: 1,
    claim: `The change edits ${path}, which the review config names; only a named person can accept that.`,
    failureScenario: `A change that edits ${path} could relax its own review; revloop cannot judge that without a person.`,
  });
}

/** The kept files of the revision git shows as binary that are text (core/hidden-text.ts). */
async function textShownAsBinary(
  ctx: RunContext,
  head: string,
  sections: readonly DiffSection[],
  plan: Pick<ReviewPlan, 'isIgnored'>,
): Promise<string[]> {
  const out: string[] = [];
  for (const s of sections) {
    if (plan.isIgnored(s.path) !== null || !shownAsBinary(s.text)) continue;
    const blob = await ctx.facts.readBlobOnce(head, s.path).catch(() => null);
    if (blob && textHiddenAsBinary(blob)) out.push(s.path);
  }
  return out;
}

/** A text file git showed as binary: its content reached no reviewer, so only a person can accept it. */
function hiddenTextFinding(
  ctx: RunContext,
  round: number,
  head: string,
  path: string,
  content: string,
): NewFinding {
  return controllerFinding(ctx, round, head, `hidden:r${round}:${path}`, content, {
    severity: 'MAJOR',
    file: path,
    line: 1,
    claim: `${path} is text with a NUL byte, which git shows as binary: no reviewer read its content; only a named person can accept it.`,
    failureScenario: `Code in ${path} lands unreviewed: git's diff, and so every reviewer's prompt, said only that the file changed.`,
  });
}

/** The checks stages of the run before this round's review, in round order (round 0: the change as admitted). */
function checksOfRun(ctx: RunContext, round: number): ChecksResult[] {
  const out: ChecksResult[] = [];
  for (let r = 0; r < round; r++) {
    const checks = ctx.ledger.stage(r, 'checks')?.result;
    if (checks) out.push(checks);
  }
  return out;
}

/** A check that passed earlier in the run, or at the base, and fails on this revision: a blocker only a person can accept. */
function brokenCheckFinding(ctx: RunContext, round: number, head: string, b: BrokenCheck): NewFinding {
  const callKey = `check:r${round}:${b.name}`;
  const exit = b.exitCode === null ? 'did not finish' : `exits ${b.exitCode}`;
  const content = ctx.deps.hash(`check:${b.name}:${head}`);
  return controllerFinding(ctx, round, head, callKey, content, {
    severity: 'MAJOR',
    file: ctx.snapshot.configPath,
    line: 1,
    claim: `The check ${b.name} fails at ${head.slice(0, 12)} (it ${exit}); it passed at ${b.atBase ? `the base ${b.passedAt.slice(0, 12)}.` : `${b.passedAt.slice(0, 12)} earlier in this run.`}`,
    failureScenario: `Landing ${head.slice(0, 12)} lands a revision on which the configured check ${b.name} fails.`,
  });
}

function controllerFinding(
  ctx: RunContext,
  round: number,
  head: string,
  callKey: string,
  content: string,
  reported: ReportedFinding,
): NewFinding {
  return {
    id: findingId(ctx.run.id, callKey, 0, ctx.deps.hash),
    runId: ctx.run.id,
    round,
    reviewer: CONTROLLER_REVIEWER,
    revision: head,
    callKey,
    index: 0,
    reported,
    severity: 'MAJOR',
    gate: { kind: 'kept' },
    content,
  };
}
