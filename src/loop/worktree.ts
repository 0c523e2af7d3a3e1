/** The run's private checkout: reviewers read it, the fixer edits it, checks run in it. */
import { existsSync } from 'node:fs';
import type { RunContext } from './run-context.js';

/** The worktree exists and holds exactly `sha`, with nothing else in it. */
export async function ensureWorktree(
  ctx: Pick<RunContext, 'deps' | 'snapshot' | 'worktree'>,
  sha: string,
): Promise<void> {
  const { git } = ctx.deps;
  if (!existsSync(ctx.worktree)) {
    await git.removeWorktree(ctx.deps.repoRoot, ctx.worktree).catch(() => undefined);
    await git.addWorktree(ctx.deps.repoRoot, ctx.worktree, sha);
  }
  await git.resetWorktree(ctx.worktree, sha);
}
