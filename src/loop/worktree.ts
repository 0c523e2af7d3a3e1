/** The run's private checkout: reviewers read it, the fixer edits it, checks run in it. */
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { besideNextCall } from './background.js';
import type { RunContext } from './run-context.js';

/**
 * The worktree exists and holds exactly `sha`, with nothing else in it. It
 * holds no state (the ledger does), so when a crash left it unusable (git
 * killed mid-command with its index.lock, a `worktree add` cut short) it is
 * rebuilt instead of leaving the run unresumable.
 */
export function ensureWorktree(
  ctx: Pick<RunContext, 'deps' | 'snapshot' | 'worktree' | 'worktreeCleanAt' | 'worktreeCommittedAt'>,
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

/** Checkout work under way, per RunContext (one per run and owner). */
const inFlight = new WeakMap<object, Set<Promise<void>>>();

async function readyWorktree(
  ctx: Pick<RunContext, 'deps' | 'snapshot' | 'worktree' | 'worktreeCleanAt' | 'worktreeCommittedAt'>,
  sha: string,
): Promise<void> {
  const { git } = ctx.deps;
  const root = ctx.deps.repoRoot;
  if (ctx.worktreeCleanAt === sha && existsSync(ctx.worktree)) return;
  ctx.worktreeCleanAt = null;
  const committed = ctx.worktreeCommittedAt === sha;
  ctx.worktreeCommittedAt = null;
  if (committed && existsSync(ctx.worktree)) {
    // HEAD, index and tracked files are the commit (commitAll staged everything): one clean suffices.
    const ok = await git.cleanWorktree(ctx.worktree).then(
      () => true,
      () => false,
    );
    if (ok) {
      ctx.worktreeCleanAt = sha;
      return;
    }
  }
  if (existsSync(ctx.worktree)) {
    try {
      await git.resetWorktree(ctx.worktree, sha);
      ctx.worktreeCleanAt = sha;
      return;
    } catch {
      // rebuilt below; an error that is not the checkout's (an unknown sha) comes back from addWorktree
    }
    await git.removeWorktree(root, ctx.worktree).catch(() => undefined);
    rmSync(ctx.worktree, { recursive: true, force: true });
  }
  await git.removeWorktree(root, ctx.worktree).catch(() => undefined);
  await git.addWorktree(root, ctx.worktree, sha);
  await git.resetWorktree(ctx.worktree, sha);
  ctx.worktreeCleanAt = sha;
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
  ctx: Pick<RunContext, 'deps' | 'worktree' | 'worktreeCleanAt'>,
): Promise<void> {
  if (ctx.worktreeCleanAt === null) return;
  const entries = await ctx.deps.git.status(ctx.worktree).catch(() => null);
  if (entries === null || entries.length > 0) ctx.worktreeCleanAt = null;
}

/**
 * The checkout for a stage whose agents may only read it. When one of them
 * reads it, it is readied before the stage and before each such agent's
 * attempt, and one status check after the stage notes whether they wrote in it.
 * When none does (model APIs see only their prompt), it is readied in the
 * background while they run, for the fixer and the checks after them.
 * `settle` ends either, before the stage records its result.
 */
export function checkoutForReaders(
  ctx: Pick<
    RunContext,
    'deps' | 'snapshot' | 'worktree' | 'worktreeCleanAt' | 'worktreeCommittedAt' | 'whenCallStarts'
  >,
  sha: string,
  agents: readonly { usesCheckout: boolean }[],
): {
  ready: Promise<void>;
  beforeAttempt: (agent: { usesCheckout: boolean }) => (() => Promise<void>) | undefined;
  settle: () => Promise<void>;
} {
  if (agents.some((a) => a.usesCheckout)) {
    return {
      ready: ensureWorktree(ctx, sha),
      beforeAttempt: (agent) => (agent.usesCheckout ? () => ensureWorktree(ctx, sha) : undefined),
      settle: () => noteReadOnlyUse(ctx),
    };
  }
  const later = besideNextCall(ctx, () => ensureWorktree(ctx, sha));
  return { ready: Promise.resolve(), beforeAttempt: () => undefined, settle: () => later.get() };
}

/**
 * A finished run's worktrees: its own, and those of owners that died holding
 * it (named by their lease token; an agent they orphaned may have written there).
 */
export async function removeRunWorktrees(ctx: Pick<RunContext, 'deps' | 'worktree'>): Promise<void> {
  await Promise.allSettled([...(inFlight.get(ctx) ?? [])]);
  const dir = dirname(ctx.worktree);
  const prefix = basename(ctx.worktree).replace(/-\d+$/, '-');
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
