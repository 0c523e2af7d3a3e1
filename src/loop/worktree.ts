/** The run's private checkout: reviewers read it, the fixer edits it, checks run in it. */
import { existsSync, rmSync } from 'node:fs';
import type { RunContext } from './run-context.js';

/**
 * The worktree exists and holds exactly `sha`, with nothing else in it. It
 * holds no state (the ledger does), so when a crash left it unusable (git
 * killed mid-command with its index.lock, a `worktree add` cut short) it is
 * rebuilt instead of leaving the run unresumable.
 */
export async function ensureWorktree(
  ctx: Pick<RunContext, 'deps' | 'snapshot' | 'worktree'>,
  sha: string,
): Promise<void> {
  const { git } = ctx.deps;
  const root = ctx.deps.repoRoot;
  if (existsSync(ctx.worktree)) {
    try {
      await git.resetWorktree(ctx.worktree, sha);
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
}
