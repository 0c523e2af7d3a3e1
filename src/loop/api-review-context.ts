/**
 * Gathers the changed files' post-change content for reviewers that cannot
 * read the checkout (API adapters, issue 17 point 5); core/file-context.ts
 * decides what fits. Read once per revision, and only when such a reviewer
 * asks; a reviewer that reads the checkout gets nothing here.
 */
import {
  type ContextCandidate,
  contextBytesUsed,
  type FileContext,
  packFileContext,
} from '../core/file-context.js';
import type { Reviewer } from '../ports/reviewer.js';
import type { RunContext } from './run-context.js';

/** Reviewers' configs before the setting existed carry this budget (the config default). */
const DEFAULT_CONTEXT_BYTES = 100_000;
/** Files read at once: enough to hide git's start, few enough not to crowd the machine. */
const READ_BATCH = 8;

/**
 * For the revision `head` (the files of `paths`, or every file the revision
 * changes since the merge base), a function giving each reviewer its context.
 */
export function apiReviewContext(
  ctx: RunContext,
  head: string,
  paths?: string[],
): (reviewer: Reviewer) => Promise<FileContext | undefined> {
  let read: Promise<FileContext> | undefined;
  return async (reviewer) => {
    if (reviewer.usesCheckout) return undefined;
    const budget = ctx.snapshot.review?.contextBytes ?? DEFAULT_CONTEXT_BYTES;
    if (budget === 0) return undefined;
    read ??= gather(ctx, head, budget, paths);
    return read;
  };
}

async function gather(
  ctx: RunContext,
  head: string,
  budget: number,
  paths: string[] | undefined,
): Promise<FileContext> {
  const wanted =
    paths ??
    (await ctx.deps.git.changedFiles(ctx.deps.repoRoot, ctx.snapshot.mergeBase, head))
      .filter((c) => c.status !== 'deleted')
      .map((c) => c.path);
  const ordered = [...new Set(wanted)].sort();
  const got: ContextCandidate[] = [];
  let i = 0;
  // Stops reading once the budget is spent: the files left unread are named, not read.
  while (i < ordered.length && contextBytesUsed(budget, got) < budget) {
    const batch = ordered.slice(i, i + READ_BATCH);
    i += batch.length;
    const blobs = await Promise.all(batch.map((p) => ctx.readBlobOnce(head, p)));
    batch.forEach((path, k) => {
      const blob = blobs[k];
      // Absent at the revision (a submodule, a path git lists but cannot show): nothing to carry.
      if (blob) got.push({ path, content: blob });
    });
  }
  for (const path of ordered.slice(i)) got.push({ path, content: null });
  return packFileContext(budget, got);
}
