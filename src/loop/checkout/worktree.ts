/** The run's private checkout: reviewers read it, the fixer edits it, checks run in it. */
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import type { Config } from '../../core/config.js';
import { commonGitDir } from '../../git/dot-git.js';
import { besideNextCall, type CallStarts } from '../calls/index.js';
import type { LoopDeps } from '../deps.js';
import { discardCheckout, type Lane, takeLane } from './pool/lanes.js';
import { poolDir } from './pool/location.js';
import type { WorktreeState } from './worktree-state.js';

/** What the checkout work uses of the run it serves (the driver's RunContext is one). */
export interface CheckoutContext {
  readonly deps: Pick<LoopDeps, 'git' | 'repoRoot' | 'hash'>;
  readonly run: { readonly id: string };
  /** The run's checkout directory for this owner. */
  readonly worktree: string;
  /** What the controller knows of that checkout. */
  readonly checkout: WorktreeState;
  /** Readying the checkout waits beside the next agent call. */
  readonly sideWork: CallStarts;
}

/**
 * The run's checkout for this owner: a lane of the repository's pool when
 * one is free (kept for the next run), else a directory of its own in the
 * system's temp dir (removed at the run's end). Either is named by the
 * lease's fencing token: an agent orphaned by a killed owner keeps writing
 * into the dead owner's checkout, never the taker's.
 */
export function takeCheckout(
  deps: Pick<LoopDeps, 'repoRoot' | 'hash' | 'env'>,
  pool: Config['pool'],
  runId: string,
  token: number,
): { dir: string; lane: Lane | null } {
  const common = pool.size > 0 ? commonGitDir(deps.repoRoot) : null;
  const lane = common
    ? takeLane({
        pool: poolDir(common, pool.dir, deps.repoRoot, deps.env),
        size: pool.size,
        common,
        runId,
        token,
      })
    : null;
  return { dir: lane?.dir ?? ownCheckoutDir(deps, runId, token), lane };
}

/** A checkout outside the pool: per run and lease, so two checkouts on one host never share one. */
function ownCheckoutDir(deps: Pick<LoopDeps, 'repoRoot' | 'hash'>, runId: string, token: number): string {
  return join(tmpdir(), 'revloop-worktrees', `${deps.hash(deps.repoRoot).slice(0, 10)}-${runId}-${token}`);
}

/** The pool lane each run context holds, released when its run ends or its owner lets go. */
const lanes = new WeakMap<object, Lane>();

export function holdLane(ctx: object, lane: Lane | null): void {
  if (lane) lanes.set(ctx, lane);
}

/** Lets go of the run's lane once no readying writes into it any more; its checkout stays for the next run. */
export async function releaseCheckout(ctx: object): Promise<void> {
  const lane = lanes.get(ctx);
  if (!lane) return;
  await Promise.allSettled([...(inFlight.get(ctx) ?? [])]);
  lanes.delete(ctx);
  lane.release();
}

/**
 * The worktree exists and holds exactly `sha`, with nothing else in it. It
 * holds no state (the ledger does), so when a crash left it unusable (git
 * killed mid-command with its index.lock, a `worktree add` cut short) it is
 * rebuilt instead of leaving the run unresumable.
 */
export function ensureWorktree(
  ctx: Pick<CheckoutContext, 'deps' | 'worktree' | 'checkout'>,
  sha: string,
): Promise<void> {
  const work = readyWorktree(ctx, sha);
  // Kept until it settles, so the run's end removes the checkout only after
  // any readying still under way (one started beside a call that then failed
  // at once) has finished writing into it.
  const pending = inFlight.get(ctx) ?? new Set();
  inFlight.set(ctx, pending);
  pending.add(work);
  const done = () => pending.delete(work);
  work.then(done, done);
  return work;
}

/** Checkout work under way, per run context (one per run and owner). */
const inFlight = new WeakMap<object, Set<Promise<void>>>();

async function readyWorktree(
  ctx: Pick<CheckoutContext, 'deps' | 'worktree' | 'checkout'>,
  sha: string,
): Promise<void> {
  const { git } = ctx.deps;
  const root = ctx.deps.repoRoot;
  if (ctx.checkout.isCleanAt(sha) && existsSync(ctx.worktree)) return;
  ctx.checkout.touched();
  const committed = ctx.checkout.takeCommitted(sha);
  if (committed && existsSync(ctx.worktree)) {
    // HEAD, index and tracked files are the commit (commitAll staged everything): one clean suffices.
    const ok = await git.cleanWorktree(ctx.worktree).then(
      () => true,
      () => false,
    );
    if (ok) {
      ctx.checkout.readiedAt(sha);
      return;
    }
  }
  if (existsSync(ctx.worktree) && !ctx.checkout.isVetted()) {
    // A pool lane the last run left: its git dir is learnt from the repository's records, never
    // from its `.git` (a role may have rewritten it); one the repository does not know, or with
    // an index entry git would not look at (it could carry an edit through the reset), is
    // rebuilt, never reviewed as it is.
    ctx.checkout.vet();
    const known = await git.bindWorktree(root, ctx.worktree).catch(() => false);
    if (!known || (await git.indexHidesEdits(ctx.worktree).catch(() => true))) await discard(ctx);
  }
  if (existsSync(ctx.worktree)) {
    try {
      await git.resetWorktree(ctx.worktree, sha);
      ctx.checkout.readiedAt(sha);
      return;
    } catch {
      // rebuilt below; an error that is not the checkout's (an unknown sha) comes back from addWorktree
    }
    await discard(ctx);
  }
  await git.removeWorktree(root, ctx.worktree).catch(() => undefined);
  await git.addWorktree(root, ctx.worktree, sha);
  ctx.checkout.vet();
  await git.resetWorktree(ctx.worktree, sha);
  ctx.checkout.readiedAt(sha);
}

async function discard(ctx: Pick<CheckoutContext, 'deps' | 'worktree'>): Promise<void> {
  await ctx.deps.git.removeWorktree(ctx.deps.repoRoot, ctx.worktree).catch(() => undefined);
  const common = commonGitDir(ctx.deps.repoRoot);
  if (common) discardCheckout(common, ctx.worktree);
  rmSync(ctx.worktree, { recursive: true, force: true });
}

/**
 * After a stage whose agents may only read the checkout (reviewers, the
 * refuter share it within a stage): one `git status` tells whether any of them
 * wrote into it; if so, the next ensureWorktree resets it. Checking once per
 * stage rather than per call saves a git process per agent; an agent that
 * writes where it may only read can mislead the agents after it in the same
 * stage, never the fixer, the checks or a later stage.
 */
export async function noteReadOnlyUse(
  ctx: Pick<CheckoutContext, 'deps' | 'worktree' | 'checkout'>,
): Promise<void> {
  if (!ctx.checkout.isKnownClean()) return;
  const entries = await ctx.deps.git.status(ctx.worktree).catch(() => null);
  if (entries === null || entries.length > 0) ctx.checkout.touched();
}

/** The attempt hooks of one call of an agent that may only read the checkout. */
export interface ReaderCall {
  beforeAttempt?: (() => Promise<void>) | undefined;
  afterAttempt?: (() => Promise<void>) | undefined;
  /** Why its reply may not be used (the checkout changed during its last attempt), or null. */
  wrote(): string | null;
}

/**
 * Each call of an agent that reads the checkout sees exactly the revision:
 * it is readied before each attempt, and looked at after it (status against
 * the revision, HEAD included, with the bound git: worktree ops). A checkout
 * that changed during the call fails the call, whoever of the agents then
 * running wrote it, and is reset before the next one.
 */
function readerCall(ctx: Pick<CheckoutContext, 'deps' | 'worktree' | 'checkout'>, sha: string): ReaderCall {
  let changed: string[] = [];
  return {
    beforeAttempt: () => ensureWorktree(ctx, sha),
    afterAttempt: async () => {
      const entries = await ctx.deps.git.status(ctx.worktree, sha).catch(() => null);
      changed = entries === null ? ['(the checkout could not be read)'] : entries.map((e) => e.path);
      if (changed.length > 0) ctx.checkout.touched();
    },
    wrote: () =>
      changed.length === 0
        ? null
        : `its checkout changed during the call (${changed.slice(0, MAX_NAMED).join(', ')}${changed.length > MAX_NAMED ? ', …' : ''}): an agent that may only read it wrote there, so its reply is not used`,
  };
}

const MAX_NAMED = 5;

/**
 * The checkout for a stage whose agents may only read it. When one of them
 * reads it, it is readied before the stage and before each such agent's
 * attempt, looked at after each attempt (readerCall), and one status check
 * after the stage notes whether any of them wrote in it.
 * When none does (model APIs see only their prompt), it is readied in the
 * background while they run, for the fixer and the checks after them, and
 * not at all when `neededLater` says no later stage reads it (no fixer, no
 * checks): a review of immutable commits by API reviewers needs no files on
 * disk, and on a 2,000-file change the checkout was a third of the bench's large-change time.
 * `settle` ends either, before the stage records its result.
 */
export function checkoutForReaders(
  ctx: Pick<CheckoutContext, 'deps' | 'worktree' | 'checkout' | 'sideWork'>,
  sha: string,
  agents: readonly { usesCheckout: boolean }[],
  neededLater = true,
): {
  ready: Promise<void>;
  call: (agent: { usesCheckout: boolean }) => ReaderCall;
  settle: () => Promise<void>;
} {
  const none: ReaderCall = { wrote: () => null };
  if (agents.some((a) => a.usesCheckout)) {
    return {
      ready: ensureWorktree(ctx, sha),
      call: (agent) => (agent.usesCheckout ? readerCall(ctx, sha) : none),
      settle: () => noteReadOnlyUse(ctx),
    };
  }
  if (!neededLater) return { ready: Promise.resolve(), call: () => none, settle: async () => {} };
  const later = besideNextCall(ctx.sideWork, () => ensureWorktree(ctx, sha));
  return { ready: Promise.resolve(), call: () => none, settle: () => later.get() };
}

/**
 * A finished run's worktrees: its own, and those of owners that died holding
 * it (named by their lease token; an agent they orphaned may have written there).
 */
export async function removeRunWorktrees(
  ctx: Pick<CheckoutContext, 'deps' | 'worktree' | 'run'>,
): Promise<void> {
  await Promise.allSettled([...(inFlight.get(ctx) ?? [])]);
  // A pool lane stays for the next run; the checkouts of its own that owners made go.
  await releaseCheckout(ctx);
  const own = ownCheckoutDir(ctx.deps, ctx.run.id, 0);
  const dir = dirname(own);
  const prefix = basename(own).replace(/-\d+$/, '-');
  const all = existsSync(dir) ? readdirSync(dir).filter((e) => e.startsWith(prefix)) : [];
  for (const name of all) {
    const wt = join(dir, name);
    // Cleanup of a run that has ended: a failure here must not turn its end into a crash.
    await ctx.deps.git.removeWorktree(ctx.deps.repoRoot, wt).catch(() => {
      try {
        rmSync(wt, { recursive: true, force: true });
      } catch {
        // left for `git worktree prune`; the ledger, not the checkout, holds the run
      }
    });
  }
}
