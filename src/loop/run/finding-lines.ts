/**
 * A reviewer's reply is checked against the revision before it is recorded:
 * every finding's file exists there and its lines are within it (the pure
 * rule is core/finding-lines.ts). A reply that fails is `malformed`: the run
 * fails, the call is not retried, nothing of it blocks or reaches the fixer.
 * A submodule at the revision is a path a change can bump and a reviewer can
 * remark on: it has no lines, so a finding on it has line 1 (the whole of it).
 */
import { findingLinesProblem, lineCount } from '../../core/finding-lines.js';
import { reviewerReplySchema } from '../../core/replies.js';
import { MalformedReplyError } from '../errors.js';
import type { RunContext } from './run-context.js';

export async function checkFindingLines(
  ctx: Pick<RunContext, 'facts' | 'deps'>,
  revision: string,
  reply: unknown,
): Promise<unknown> {
  // The adapter validated it; parsed again here only to be typed, never cast.
  const parsed = reviewerReplySchema.safeParse(reply);
  if (!parsed.success)
    throw new MalformedReplyError(`reply fails the reviewer schema: ${parsed.error.message}`);
  const { findings } = parsed.data;
  if (findings.length === 0) return reply;
  // Each file once, read together (a file at a commit id is read from git once per run).
  const files = [...new Set(findings.map((f) => f.file))];
  const counts = new Map(
    await Promise.all(
      files.map(async (f) => {
        const blob = await ctx.facts.readBlob(revision, f);
        if (blob !== null) return [f, lineCount(blob)] as const;
        const kind = await ctx.deps.git.pathKind?.(ctx.deps.repoRoot, revision, f).catch(() => null);
        return [f, kind === 'submodule' ? 0 : null] as const;
      }),
    ),
  );
  const problem = findingLinesProblem(findings, (f) => counts.get(f) ?? null, revision);
  if (problem) throw new MalformedReplyError(problem);
  return reply;
}
