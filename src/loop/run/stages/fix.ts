/**
 * The fix stage: the fixer edits an isolated worktree of the run's revision;
 * the controller, not the fixer, commits the edit as the run's next revision
 * (on refs/revloop/runs/<id>; the change's branch moves only with --apply).
 * Commits the fixer made on top of the revision are its edit, committed
 * again as the controller's; a fixer that rewrites history, leaves conflicts
 * or deletes the checkout fails the run, and nothing of its edit lands. Edits it made inside a
 * submodule cannot land and are named in the result (notLanded); the user's
 * own tree changing meanwhile is noted, never blamed on it.
 */
import { existsSync } from 'node:fs';
import { relative } from 'node:path';
import { matchDisputes } from '../../../core/disputes.js';
import { endForCallFailure } from '../../../core/failure-map.js';
import type { Lease } from '../../../core/ledger.js';
import { fixerPrompt } from '../../../core/prompt.js';
import { fixerReplySchema } from '../../../core/replies.js';
import type { FixResult, RecordedFix } from '../../../core/stage-results.js';
import type { FixerReply } from '../../../core/types.js';
import { callAgent } from '../../calls/index.js';
import { ensureWorktree } from '../../checkout/index.js';
import { MalformedReplyError } from '../../errors.js';
import { haveFixCommitOrEnd, keepFixBundle } from '../fix-bundles.js';
import { changedPaths, editsInSubmodules, refusedFixCommit } from '../fix-landing.js';
import { fixerDiff } from '../focused-prompts.js';
import { checkFrozen, checkRefAndRules, markFrozen } from '../freeze.js';
import { type RunContext, RunEnd } from '../run-context.js';

export async function fixStage(
  ctx: RunContext,
  lease: Lease,
  round: number,
  diff: string,
  expectedDigest: string,
  blockerIds: string[],
  treeBefore?: Promise<string>,
): Promise<FixResult> {
  const fixer = ctx.fixer;
  if (!fixer) throw new Error('fix stage without a fixer');
  const head = ctx.run.head;
  await checkFrozen(ctx, expectedDigest);
  const prompt = await promptFor(ctx, fixer.cfg.instructions, diff, blockerIds);
  // Read while the worktree is being readied (both before the fixer starts), unless the
  // driver started it already.
  const userTreeBefore = treeBefore ?? userTreeState(ctx);
  // Awaited only by an attempt: a recorded verdict or a spent budget makes none.
  userTreeBefore.catch(() => undefined);
  const call: FixCall = { round, head, expectedDigest, blockerIds, userTreeBefore };
  // What the reply became, kept for after the call: a refused landing ends the run only
  // once the reply (a call that succeeded) is recorded.
  let finished: FinishedFix | undefined;
  const res = await callAgent(ctx, lease, {
    role: 'fixer',
    name: fixer.name,
    round,
    stage: 'fix',
    prompt,
    reviewer: fixer.reviewer,
    head,
    repoDir: ctx.worktree,
    beforeAttempt: async () => {
      await Promise.all([ensureWorktree(ctx, head), userTreeBefore]);
    },
    afterAttempt: async () => {
      ctx.checkout.touched(); // the fixer edits it
    },
    finish: async (reply): Promise<RecordedFix> => {
      finished = await finishFix(ctx, lease, call, reply);
      return finished.recorded;
    },
  });
  if (!res.ok) {
    await ensureWorktree(ctx, head).catch(() => undefined);
    throw new RunEnd(endForCallFailure(res.class, 'fixer', `fixer: ${res.detail}`, res.attempts > 1));
  }
  if (finished?.refused) throw finished.refused;
  return recordFix(ctx, lease, call, res.verdict.reply, res.fresh);
}

/** One fix stage's call: what its reply is committed, landed and recorded against. */
interface FixCall {
  round: number;
  /** The revision the fixer edits. */
  head: string;
  /** The revision's diff digest, which a reply that changes nothing keeps. */
  expectedDigest: string;
  blockerIds: string[];
  /** The user's tree before the fixer started. */
  userTreeBefore: Promise<string>;
}

/** A reply finished: the fix to record, and its landing's refusal (the reply is recorded all the same). */
interface FinishedFix {
  recorded: RecordedFix;
  refused: unknown;
}

/** The fixer's prompt names the round's blockers by id, so that its disputes can name them back. */
async function promptFor(
  ctx: RunContext,
  instructions: string | undefined,
  diff: string,
  blockerIds: string[],
) {
  const all = await ctx.deps.store.listFindings(ctx.run.id);
  const blockers = blockerIds.flatMap((id) => {
    const f = all.find((x) => x.id === id);
    return f ? [{ id, finding: f.reported }] : [];
  });
  return fixerPrompt({
    criteria: ctx.criteria,
    // Of a diff too large for one call, the blockers' files only (focused-prompts.ts).
    ...(await fixerDiff(ctx, diff, blockers)),
    blockers,
    instructions,
    hash: ctx.deps.hash,
  });
}

/** Turns a valid fixer reply into what is recorded: its edit committed, then landed unless refused. */
async function finishFix(ctx: RunContext, lease: Lease, call: FixCall, reply: unknown): Promise<FinishedFix> {
  if (!existsSync(ctx.worktree)) throw new Error('fixer deleted its checkout');
  // The adapter validated it; parsed again here only to be typed, never cast.
  const parsedReply = fixerReplySchema.safeParse(reply);
  if (!parsedReply.success)
    throw new MalformedReplyError(`reply fails the fixer schema: ${parsedReply.error.message}`);
  const fixerReply: FixerReply = parsedReply.data;
  const { commit, digest, notes } = await commitFixerEdit(ctx, lease, call);
  if (!commit)
    return { recorded: { ...fixerReply, commit, diffDigest: call.expectedDigest, ...notes }, refused: null };
  const { diffDigest, refused } = await landFix(ctx, commit, digest);
  return { recorded: { ...fixerReply, commit, diffDigest, ...notes }, refused };
}

/**
 * Commits the fixer's edit as the run's next revision and readies the checkout again. The
 * user's tree is read once the commit is made (the two would compete for the machine's
 * disk and cores), beside the new revision's diff read; the run's ref moves only after
 * these, and after the push and rules checks (landFix).
 */
async function commitFixerEdit(ctx: RunContext, lease: Lease, call: FixCall) {
  const { head, expectedDigest } = call;
  // Files in a submodule's (never initialised) directory: the fixer's, and `add` leaves them out.
  const inSubmodules = editsInSubmodules(ctx, head);
  inSubmodules.catch(() => undefined);
  const commit = await commitEdit(ctx, call);
  ctx.checkout.committed(commit ?? head);
  // In the ledger before the reply naming it is: a worker on another clone that takes the
  // run over (or applies its fixes) imports the commit from there.
  const kept = commit
    ? keepFixBundle(ctx.deps, lease, ctx.worktree, commit, ctx.snapshot.head)
    : Promise.resolve();
  kept.catch(() => undefined);
  // The new commit's first read is fresh, and gives the next round's prompt diff too.
  const digest = commit ? ctx.facts.digest(commit) : Promise.resolve(expectedDigest);
  digest.catch(() => undefined);
  const userChanges = userTreeState(ctx).then(async (after) =>
    changedPaths(await call.userTreeBefore, after),
  );
  userChanges.catch(() => undefined);
  // The checkout is readied for the next stage (the clean commitAll leaves to do: ignored
  // files the fixer made) beside these reads, not after the stage is recorded: once the
  // fixer's files inside submodules are listed (the clean would remove them), and awaited
  // before the stage goes on, so nothing else works in the checkout meanwhile. A failure
  // leaves it to be readied again by the next stage.
  const readied = commit
    ? inSubmodules
        .catch(() => null)
        .then(() => ensureWorktree(ctx, commit))
        .catch(() => undefined)
    : Promise.resolve();
  // The user's tree is theirs: a change there is reported, never blamed on the fixer (a
  // save mid-fix looks the same as anything else's write). A failed read only loses the note.
  const changed = await userChanges.catch(() => []);
  // Settled before anything here can throw: a failed call readies the checkout again at once.
  await readied;
  const refused = commit ? await refusedFixCommit(ctx, head, commit) : null;
  if (refused) throw new Error(refused);
  await kept;
  const notes = {
    ...(changed.length > 0 ? { userTreeChanged: changed } : {}),
    ...(await inSubmodules.then((why) => (why ? { notLanded: why } : {}))),
  };
  return { commit, digest, notes };
}

/** The controller commits the fixer's edit; history it cannot take is the fixer's doing, and named so. */
async function commitEdit(ctx: RunContext, { head, round }: FixCall): Promise<string | null> {
  return ctx.deps.git
    .commitAll(ctx.worktree, head, `revloop: fix round ${round} of run ${ctx.run.id}`)
    .catch((err: Error & { code?: string }) => {
      // commitAll takes the fixer's own commits on top of the revision as its edit, and
      // refuses history it cannot (a rewrite, a merge), a HEAD moved under it, or conflicts.
      if (err.code === 'fixer_history') throw new Error(err.message);
      if (err.code === 'worktree_moved')
        throw new Error(`fixer moved HEAD of its worktree while it was committed: ${err.message}`);
      if (err.code === 'worktree_conflict') throw new Error(`fixer left conflicts: ${err.message}`);
      throw err;
    });
}

/** Lands a fresh fix commit before its reply is recorded; a refusal is returned, since the reply is recorded all the same. */
async function landFix(
  ctx: RunContext,
  commit: string,
  digest: Promise<string>,
): Promise<{ diffDigest: string; refused: unknown }> {
  const refused = await land(ctx, commit).then(
    () => null,
    (err: unknown) => err,
  );
  const diffDigest = await digest;
  if (!refused) markFrozen(ctx, commit);
  return { diffDigest, refused };
}

/** Records the fix stage from its recorded reply: the commit checked (landed, if not yet), the disputes matched. */
async function recordFix(
  ctx: RunContext,
  lease: Lease,
  { round, head, blockerIds }: FixCall,
  reply: RecordedFix,
  fresh: boolean,
): Promise<FixResult> {
  // A verdict recorded before a crash names a commit made then, maybe on another clone: it must
  // exist here, or come from the ledger's bundle of it.
  if (!fresh && reply.commit && !(await haveFixCommitOrEnd(ctx.deps, ctx.run.id, reply.commit))) {
    throw new RunEnd(
      endForCallFailure('failed', 'fixer', `fix commit ${reply.commit} is gone from the repository`, false),
    );
  }
  const { disputes, unknownIds } = matchDisputes(reply.disputed, blockerIds);
  const next = reply.commit ?? head;
  // A fix recorded by an earlier process, or no commit: checked (and landed) here, before the result.
  if (!fresh || !reply.commit) await land(ctx, next, reply.commit !== null);
  const result: FixResult = {
    from: head,
    commit: reply.commit,
    diffDigest: reply.diffDigest,
    disputes,
    unknownIds,
    ...(reply.notLanded ? { notLanded: reply.notLanded } : {}),
    ...(reply.userTreeChanged ? { userTreeChanged: reply.userTreeChanged } : {}),
  };
  ctx.deps.crashPoint?.('before-complete:fix');
  ctx.ledger.noteStage(
    await ctx.deps.store.completeStage(lease, {
      round,
      stage: 'fix',
      result,
      disputes,
      run: { head: next },
    }),
  );
  ctx.movedTo(next);
  return result;
}

/**
 * The user's working tree as `git status` sees it, less revloop's own state
 * (prompts, ledger, records live there and change during the call). Compared
 * before and after the fixer, and a change noted on the fix, never blamed on it.
 */
export async function userTreeState(ctx: Pick<RunContext, 'deps'>): Promise<string> {
  const { repoRoot, stateDir } = ctx.deps;
  const stateRel = relative(repoRoot, stateDir(repoRoot));
  const ours = (p: string) =>
    stateRel !== '' && !stateRel.startsWith('..') && (p === stateRel || p.startsWith(`${stateRel}/`));
  return JSON.stringify((await ctx.deps.git.status(repoRoot)).filter((e) => !ours(e.path)));
}

/**
 * Checks the push and the rules against a fix's revision, then starts moving
 * the run's ref to it (beside the next calls; see run-ref.ts): a rejected fix
 * (changed rules, a new push) never lands there.
 */
async function land(ctx: RunContext, next: string, moveRef = true): Promise<void> {
  // A move that failed under the last round is reported before another round builds on it.
  if (ctx.runRef.failure()) throw ctx.runRef.failure();
  await checkRefAndRules(ctx, next);
  if (moveRef) ctx.runRef.moveTo(next, ctx.sideWork);
}
