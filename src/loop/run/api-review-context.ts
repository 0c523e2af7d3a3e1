/**
 * Gathers the changed files' post-change content for reviewers that cannot
 * read the checkout (API adapters); core/file-context.ts
 * decides what fits. Read once per revision, and only when such a reviewer
 * asks; a reviewer that reads the checkout gets nothing here.
 */
import {
  type ContextCandidate,
  contextReads,
  type FileContext,
  packFileContext,
} from '../../core/file-context.js';
import type { Reviewer } from '../../ports/reviewer.js';
import type { RunContext } from './run-context.js';

/** Reviewers' configs before the setting existed carry this budget (the config default). */
const DEFAULT_CONTEXT_BYTES = 100_000;
/** Up to this many files, read without asking their sizes first (as the reader did before sizes). */
const READ_UNSIZED = 8;

/**
 * For the revision `head` and the files of `paths` (a chunk's, or a claim's:
 * never an ignored file, and a deleted one has nothing to carry), a function
 * giving each reviewer its context.
 */
export function apiReviewContext(
  ctx: RunContext,
  head: string,
  paths: readonly string[],
  /** Files the prompt's diff holds whole (review-plan.ts): named, their content not repeated. */
  wholeInDiff: ReadonlySet<string> = new Set(),
): (reviewer: Reviewer) => Promise<FileContext | undefined> {
  let read: Promise<FileContext> | undefined;
  return async (reviewer) => {
    if (reviewer.usesCheckout) return undefined;
    const budget = ctx.snapshot.review?.contextBytes ?? DEFAULT_CONTEXT_BYTES;
    if (budget === 0) return undefined;
    read ??= gather(ctx, head, budget, paths, wholeInDiff);
    return read;
  };
}

/**
 * Reads only what the budget can take, by the files' sizes asked first
 * (contextReads): a chunk of files over the budget costs one read of the
 * files that fit, all asked at once, instead of every file of the chunk.
 */
async function gather(
  ctx: RunContext,
  head: string,
  budget: number,
  paths: readonly string[],
  wholeInDiff: ReadonlySet<string>,
): Promise<FileContext> {
  const all = [...new Set(paths)].sort();
  const ordered = all.filter((path) => !wholeInDiff.has(path));
  // A few files are read whole, as they come (one round trip); more are sized first, so that
  // only those that fit are read (a second git process, which only larger changes pay for).
  const sizes =
    ordered.length <= READ_UNSIZED
      ? new Map<string, number | null>()
      : await ctx.facts.blobSizes(head, ordered);
  // No file there (a deleted path, a submodule): nothing to carry, and nothing to name.
  const files = ordered
    .filter((path) => sizes.get(path) !== null)
    .map((path) => ({ path, bytes: sizes.get(path) ?? undefined }));
  const read = new Map<string, Uint8Array>();
  const absent = new Set<string>();
  for (;;) {
    const next = contextReads(
      budget,
      files.filter((f) => !absent.has(f.path)),
      read,
    );
    if (next.length === 0) break;
    const blobs = await Promise.all(next.map((p) => ctx.facts.readBlobOnce(head, p)));
    next.forEach((path, k) => {
      const blob = blobs[k];
      if (blob) read.set(path, blob);
      else absent.add(path);
    });
  }
  const got: ContextCandidate[] = [
    ...files
      .filter((f) => !absent.has(f.path))
      .map((f) => ({ path: f.path, content: read.get(f.path) ?? null })),
    ...all.filter((path) => wholeInDiff.has(path)).map((path) => ({ path, content: null, inDiff: true })),
  ];
  return packFileContext(budget, got);
}
