/**
 * What of the revision's diff a refuter or a fixer prompt carries:
 * never a file the frozen ignore rules leave out (point 4); the rest within
 * `review.chunkBytes` whole, as before (same prompts, same call keys); a
 * larger one cut to the files the claim or the blockers name
 * (core/focused-diff.ts), an API refuter also getting the claim's file at the
 * revision within `review.contextBytes`. A file whose needed hunk alone is
 * over the limit fails the run `missing_context`, naming the `ignore:` line
 * that would leave it out, as the review does.
 */
import type { FileContext } from '../../core/file-context.js';
import { type FocusWanted, focusDiff } from '../../core/focused-diff.js';
import type { DiffFocus } from '../../core/prompt.js';
import type { ReportedFinding } from '../../core/types.js';
import type { Reviewer } from '../../ports/reviewer.js';
import { apiReviewContext } from './api-review-context.js';
import { chunkLimit, keptSections, tooLargeForOneCall } from './review-plan.js';
import type { RunContext } from './run-context.js';

export interface PromptDiff {
  diff: string;
  /** Absent when the diff is whole. */
  focus?: DiffFocus;
}

const linesOf = (f: ReportedFinding): [number, number] => [f.line, f.endLine ?? f.line];

/** The refuter's diff for one claim, and (when the diff is cut and the refuter cannot read the checkout) the claim's file. */
export async function refuterDiff(
  ctx: RunContext,
  diff: string,
  claim: ReportedFinding,
  refuter: Reviewer,
): Promise<PromptDiff & { files?: FileContext | undefined }> {
  const got = await focused(ctx, diff, [{ path: claim.file, lines: [linesOf(claim)] }]);
  if (!got.focus) return got;
  return { ...got, files: await apiReviewContext(ctx, ctx.run.head, [claim.file])(refuter) };
}

/** The fixer's diff: the files of the blockers it is to fix. */
export function fixerDiff(
  ctx: RunContext,
  diff: string,
  blockers: { finding: ReportedFinding }[],
): Promise<PromptDiff> {
  return focused(
    ctx,
    diff,
    blockers.map(({ finding }) => ({ path: finding.file, lines: [linesOf(finding)] })),
  );
}

async function focused(ctx: RunContext, diff: string, wanted: FocusWanted[]): Promise<PromptDiff> {
  const limit = chunkLimit(ctx.snapshot);
  // The files the ignore rules leave out are in no prompt: not in the review's,
  // and not in these. With nothing of this diff ignored, the diff goes as it is (same prompts, same
  // call keys as before).
  const all = await ctx.facts.promptSections(ctx.run.head, diff, limit);
  const { kept } = keptSections(ctx.snapshot, all, await ctx.facts.editedByFix(ctx.run.head));
  // Every section a slice of the diff (none cut to what git shows: a rename, a large deletion): the
  // diff itself, the same string.
  const whole = kept === all && all.every((s) => s.at !== undefined);
  const shown = whole ? diff : kept.map((s) => s.text).join('');
  if (Buffer.byteLength(shown, 'utf8') <= limit) return { diff: shown };
  const got = focusDiff(kept, wanted, limit);
  if (!got.ok) throw tooLargeForOneCall(got, limit);
  return { diff: got.text, focus: { files: got.files, omitted: got.omitted } };
}
