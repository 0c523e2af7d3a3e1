/**
 * The driver: holds a run through its lease and walks it round by round,
 * skipping every stage the ledger already holds for this snapshot (so a
 * resumed run costs at most the interrupted call), until the pure decision
 * says stop or an input check, a budget or a failed call ends it.
 */
import { type LoadedConfig, loadConfigAt } from '../../config/loader.js';
import type { AgentConfig } from '../../core/config.js';
import { RevloopError } from '../../core/errors.js';
import type { Lease, RunRow } from '../../core/ledger.js';
import { roundStep, WALK_START, type WalkFacts } from '../../core/round-step.js';
import { completedEnd, type TerminalEnd, unfinishedEnd } from '../../core/run-state.js';
import type { Stage } from '../../core/types.js';
import type { Admission } from '../admission.js';
import { SideWork } from '../calls/index.js';
import {
  holdLane,
  inJudgeTree,
  type JudgeTree,
  judgeTreeFor,
  releaseCheckout,
  removeRunWorktrees,
  takeCheckout,
} from '../checkout/index.js';
import type { LoopDeps } from '../deps.js';
import { StopRequestedError } from '../errors.js';
import { writeRunOutputs } from '../outputs/index.js';
import { haveFixCommitOrEnd } from './fix-bundles.js';
import { keepLease } from './lease-keeper.js';
import { LineFacts } from './line-facts.js';
import { type Agent, RunContext, RunEnd } from './run-context.js';
import { RunRefMoves } from './run-ref.js';
import { checksStage } from './stages/checks.js';
import { decideStage } from './stages/decide.js';
import { fixStage, userTreeState } from './stages/fix.js';
import { refuteStage } from './stages/refute.js';
import { reviewStage } from './stages/review.js';

export interface DriveOptions {
  /** Also write the signed record here. */
  out?: string | undefined;
  /**
   * What this process's admission of the run read moments ago: its commits
   * were resolved (not checked again), its config loaded, its diff read (the
   * first round's prompts carry it).
   */
  admittedHere?: Pick<Admission, 'loaded' | 'diff'> | undefined;
}

export interface DriveResult {
  run: RunRow;
  recordPath: string | null;
  /** Set when this process stopped holding the run before it ended (signal, lost lease). */
  detached: 'signal' | 'fenced_out' | null;
}

export async function driveRun(deps: LoopDeps, lease: Lease, opts: DriveOptions = {}): Promise<DriveResult> {
  const keeper = keepLease(deps.store, lease, deps.leaseTtlMs);
  const boundary = (name: string) => {
    deps.crashPoint?.(name);
    const lost = keeper.lost();
    if (lost) throw lost;
    if (deps.signal?.aborted) throw new StopRequestedError(lease.runId);
  };
  // The pool lane goes back however this owner stops holding the run.
  let ctx: RunContext | undefined;
  try {
    const run = await runInLedger(deps, lease.runId);
    try {
      ctx = await buildContext(deps, run, lease.token, opts.admittedHere?.loaded);
      if (opts.admittedHere) ctx.facts.seedDiff(run.snapshot.head, opts.admittedHere.diff);
    } catch (err) {
      if (err instanceof RunEnd) return await finish(deps, lease, err.end, opts, run);
      throw err;
    }
    await deps.store.markInterruptedAttempts(lease);
    try {
      const end = await walk(ctx, lease, boundary);
      return await finish(deps, lease, end, opts, ctx);
    } catch (err) {
      if (err instanceof RunEnd) return await finish(deps, lease, err.end, opts, ctx);
      throw err;
    }
  } catch (err) {
    if (err instanceof StopRequestedError) {
      await deps.store.releaseLease(lease).catch(() => undefined);
      return { run: await runInLedger(deps, lease.runId), recordPath: null, detached: 'signal' };
    }
    if (err instanceof RevloopError && err.code === 'fenced_out') {
      return { run: await runInLedger(deps, lease.runId), recordPath: null, detached: 'fenced_out' };
    }
    throw err;
  } finally {
    keeper.stop();
    if (ctx) await releaseCheckout(ctx);
  }
}

/** How the driver runs one stage: checked before its boundary, then run (it records its own completion). */
interface StageHandler {
  /** Checked before the stage's boundary (the budgets, before a fix). */
  before?(): void;
  run(): Promise<unknown>;
}

/**
 * Folds the one walk of a round (core/round-step.ts) over the ledger: each
 * planned stage crosses its boundary (crash point, lost lease, stop request),
 * is announced and run; a recorded stage is never planned again.
 */
async function walk(ctx: RunContext, lease: Lease, boundary: (name: string) => void): Promise<TerminalEnd> {
  const { deps } = ctx;
  const lines = new LineFacts(deps.git, deps.repoRoot);
  const facts: WalkFacts = {
    hasChecks: ctx.snapshot.checks.length > 0,
    recorded: (round, stage) => ctx.ledger.stage(round, stage) !== undefined,
    decision: (round) => ctx.ledger.stage(round, 'decide')?.result.decision,
  };
  let at = WALK_START;
  let handlers: { round: number; of: Record<Stage, StageHandler> } | undefined;
  for (;;) {
    const step = roundStep(at, facts);
    at = step.at;
    const { plan } = step;
    if (plan.kind === 'stop') return completedEnd(plan.decision.outcome, plan.decision.stopReason);
    if (plan.kind === 'begin') {
      ctx.budget.check();
      await deps.store.beginRound(lease, plan.round, ctx.run.head);
      continue;
    }
    if (handlers?.round !== plan.round)
      handlers = { round: plan.round, of: stageHandlers(ctx, lease, plan.round, lines) };
    const h = handlers.of[plan.stage];
    h.before?.();
    boundary(`before:${plan.stage}`);
    deps.onEvent?.({
      kind: 'stage',
      runId: ctx.run.id,
      round: plan.round,
      stage: plan.stage,
      head: ctx.run.head,
    });
    // Each stage notes the row its completion recorded (Store.completeStage returns it): no read back.
    await h.run();
  }
}

/** What each stage of round `round` does; round 0 has only its checks. */
function stageHandlers(
  ctx: RunContext,
  lease: Lease,
  round: number,
  lines: LineFacts,
): Record<Stage, StageHandler> {
  const s = ctx.snapshot;
  const diffOf = (head: string) => ctx.promptDiff(head);
  const expected = () => (round === 1 ? s.diffDigest : expectedDigestAfterFix(ctx, round - 1));
  // The fixer's "before" view of the user's tree: read beside the last reviewer's call
  // (without a refuter), else once the refutations are in; by the decision at the latest.
  let treeBefore: Promise<string> | undefined;
  const readTreeBefore = () => {
    // No fix follows the last round the budget allows.
    if (treeBefore || !ctx.fixer || ctx.ledger.stage(round, 'fix') || round >= s.budgets.rounds) return;
    treeBefore = userTreeState(ctx);
    treeBefore.catch(() => undefined);
  };
  return {
    review: {
      run: async () => {
        // The decision's progress evidence compares this revision with the last: read those
        // diffs while the reviewers work.
        if (round > 1) prefetchProgressHunks(ctx, lines, round);
        const besideLastCall = ctx.refuter ? undefined : readTreeBefore;
        await reviewStage(ctx, lease, round, await diffOf(ctx.run.head), expected(), lines, besideLastCall);
      },
    },
    refute: {
      run: async () => refuteStage(ctx, lease, round, await diffOf(ctx.run.head), expected(), lines),
    },
    decide: {
      run: () => {
        readTreeBefore();
        return decideStage(ctx, lease, round, lines);
      },
    },
    fix: {
      before: () => ctx.budget.check(),
      run: async () => {
        const d = ctx.ledger.stage(round, 'decide')?.result.decision;
        if (d?.kind !== 'fix') throw new Error(`round ${round}: a fix began without a decision to fix`);
        await fixStage(ctx, lease, round, await diffOf(ctx.run.head), expected(), d.blockers, treeBefore);
      },
    },
    checks: { run: () => checksStage(ctx, lease, round) },
  };
}

async function buildContext(
  deps: LoopDeps,
  run: RunRow,
  token: number,
  admittedWith?: LoadedConfig,
): Promise<RunContext> {
  const s = run.snapshot;
  const loaded = await frozenInputs(deps, run, admittedWith);
  const c = loaded.config;
  // The judges' own files run from the config's commit, never from the change (judge-tree.ts).
  const judges = [...c.reviewers, c.refuter, c.fixer].flatMap((a) => (a?.command ? [a.command] : []));
  const judge = await judgeTreeFor(deps, s.configFrom === 'head' ? s.head : s.base, judges);
  const agent = agentMaker(deps, judge);
  const [rounds, verdicts, attempts, stages] = await Promise.all([
    deps.store.listRounds(run.id),
    deps.store.listVerdicts(run.id),
    deps.store.listAttempts(run.id),
    deps.store.listStages(run.id),
  ]);
  const startedAt = rounds.find((r) => r.round === 1)?.startedAt ?? deps.clock.now();
  // Taken last: nothing above may throw while this owner holds a lane of the pool.
  const checkout = takeCheckout(deps, c.pool, run.id, token);
  const ctx = new RunContext({
    deps,
    run,
    loaded,
    reviewers: c.reviewers.map((r) => agent(r, 'reviewer', r.name)),
    refuter: c.refuter ? agent(c.refuter, 'refuter', c.refuter.name ?? 'refuter') : null,
    fixer: c.fixer ? agent(c.fixer, 'fixer', c.fixer.name ?? 'fixer') : null,
    startedAt,
    worktree: checkout.dir,
    sideWork: new SideWork(),
    judge,
    recorded: { verdicts, attempts, stages },
  });
  holdLane(ctx, checkout.lane);
  return ctx;
}

/**
 * The run's frozen inputs, as this clone has them: every commit the run names
 * exists (a fix commit made on another clone is imported from the ledger), and
 * the config and criteria read again hash as the snapshot froze them. Anything
 * else ends the run (RunEnd): a commit gone is unresumable, changed rules abort.
 */
async function frozenInputs(deps: LoopDeps, run: RunRow, admittedWith?: LoadedConfig): Promise<LoadedConfig> {
  const s = run.snapshot;
  // Independent reads, started together; judged in order. Admission in this process
  // resolved the snapshot's commits moments ago.
  const admitted = admittedWith ? [s.base, s.head, s.mergeBase] : [];
  const shas = [...new Set([s.base, s.head, s.mergeBase, run.head])].filter((c) => !admitted.includes(c));
  // The run's head past the admitted one is a fix commit, maybe made on another clone: the
  // ledger's bundle of it brings it here (a refused one ends the run, never applied).
  // (A ledger fault while reading the bundle is thrown as such, not taken for a lost commit.)
  const exists = shas.map((sha) =>
    sha === run.head && sha !== s.head
      ? haveFixCommitOrEnd(deps, run.id, sha).catch((err: Error) => err)
      : deps.git.commitExists(deps.repoRoot, sha).catch(() => false),
  );
  const config = admittedWith
    ? Promise.resolve(admittedWith)
    : loadConfigAt(deps.git, deps.repoRoot, s.configFrom === 'head' ? s.head : s.base, s.configPath);
  config.catch(() => undefined);
  for (const [i, sha] of shas.entries()) {
    const found = await exists[i];
    if (found instanceof Error) throw found;
    if (!found)
      throw new RunEnd(
        unfinishedEnd(
          'unknown',
          'unresumable',
          `commit ${sha.slice(0, 12)} no longer exists in ${deps.repoRoot}`,
        ),
      );
  }
  const loaded = await config.catch((err: Error) => {
    throw new RunEnd(unfinishedEnd('aborted', 'rules_changed', err.message));
  });
  if (loaded.configDigest !== s.configDigest || loaded.criteriaDigest !== s.criteriaDigest)
    throw new RunEnd(
      unfinishedEnd('aborted', 'rules_changed', 'config or criteria differ from the snapshot'),
    );
  return loaded;
}

/** Makes each configured agent, a command that names a file of the config's commit run from the judge tree. */
function agentMaker(deps: LoopDeps, judge: JudgeTree | null) {
  return (given: AgentConfig, role: 'reviewer' | 'refuter' | 'fixer', name: string): Agent => {
    const cfg = given.command
      ? { ...given, command: inJudgeTree(given.command, judge, deps.repoRoot) }
      : given;
    const env = deps.env;
    return {
      name,
      cfg,
      reviewer: deps.createReviewer(cfg, {
        role,
        name,
        repoRoot: deps.repoRoot,
        env,
        confinement: deps.confinement,
      }),
    };
  };
}

/** Starts reading the hunks the decide stage's progress facts need (cached in `lines`). */
function prefetchProgressHunks(ctx: RunContext, lines: LineFacts, round: number): void {
  const prev = ctx.ledger.stage(round - 1, 'fix')?.result.from;
  if (!prev) return;
  const { mergeBase } = ctx.snapshot;
  const head = ctx.run.head;
  for (const [from, to] of [
    [mergeBase, prev],
    [mergeBase, head],
    [prev, head],
  ] as const) {
    // A failure stays cached for the decide stage, which reports it; without a call to hide
    // behind (a resumed round), the decide stage reads them itself.
    ctx.sideWork.whenCallStarts(() => void lines.prefetch(from, to).catch(() => undefined));
  }
}

/** The run's row now: a run missing from the ledger is a broken store, never a null to hand back as a row. */
async function runInLedger(deps: LoopDeps, runId: string): Promise<RunRow> {
  const run = await deps.store.getRun(runId);
  if (!run) throw new Error(`run ${runId} vanished from the ledger`);
  return run;
}

/** The diff digest the revision made by round r's fix must hash to. */
function expectedDigestAfterFix(ctx: RunContext, round: number): string {
  const fix = ctx.ledger.stage(round, 'fix')?.result;
  if (!fix) throw new Error(`round ${round + 1} began without round ${round}'s fix in the ledger`);
  return fix.diffDigest;
}

async function finish(
  deps: LoopDeps,
  lease: Lease,
  end: TerminalEnd,
  opts: DriveOptions,
  held: RunContext | RunRow,
): Promise<DriveResult> {
  const ctx = held instanceof RunContext ? held : undefined;
  const run = held instanceof RunContext ? held.run : held;
  // The run's ref holds its head before the ledger ends the run and the worktrees (which
  // hold the fix commits until then) go. A failed move is thrown: the run stays resumable.
  // A run ended before its context was built may name a head this clone lacks (another clone's
  // fix, its bundle refused or never kept): that clone's ref holds it, and none moves here.
  if (ctx || (await deps.git.commitExists(deps.repoRoot, run.head)))
    await (ctx?.runRef ?? new RunRefMoves(deps.git, deps.repoRoot, run.id)).settle(
      run.head,
      run.snapshot.head,
    );
  deps.crashPoint?.('before:finish');
  // No call of this owner is under way now, so an attempt still `started` is one whose end was
  // never recorded: a dead owner's, when the run ends before resuming it (its context cannot be
  // built), or this owner's own, when a store write's answer was lost. The run ends with it `unknown`.
  await deps.store.markInterruptedAttempts(lease);
  const row = await deps.store.finishRun(lease, end);
  deps.onEvent?.({ kind: 'end', runId: row.id, status: row.status, outcome: row.outcome });
  deps.crashPoint?.('after:finish');
  // The worktrees go while the record is written from the ledger: neither needs the other.
  const [, recordPath] = await Promise.all([
    ctx ? removeRunWorktrees(ctx) : undefined,
    writeRunOutputs(deps, row, opts.out),
  ]);
  return { run: (await deps.store.getRun(row.id)) ?? row, recordPath, detached: null };
}
