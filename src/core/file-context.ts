/**
 * The changed files' post-change content an API reviewer's prompt carries
 * for API adapters: a model that cannot read the checkout sees the code
 * around the hunks. Within a byte budget, files are taken whole in path
 * order; one that does not fit is left out (named in the prompt) and the
 * next ones are still tried, so one large file does not starve the rest.
 * Pure: the review stage reads the files and passes them in.
 */
import { longestBacktickRun } from './backtick-runs.js';

export interface FileContext {
  /** Whole files, in path order. */
  included: { path: string; text: string }[];
  /** Changed files the prompt names without their content, and why. */
  omitted: { path: string; reason: OmitReason }[];
  budgetBytes: number;
  /** Bytes of the included files, as read. */
  usedBytes: number;
}

export const OmitReason = {
  over_budget: 'over_budget',
  binary: 'binary',
  /** A new file the diff itself carries whole: its content again would be the same bytes twice. */
  in_diff: 'in_diff',
} as const;
export type OmitReason = (typeof OmitReason)[keyof typeof OmitReason];

/** A changed file at the revision: its bytes, or null when they were not read (the budget was spent). */
export interface ContextCandidate {
  path: string;
  content: Uint8Array | null;
  /** The prompt's diff carries the whole file (a new file in one piece): named, not repeated. */
  inDiff?: boolean;
}

const utf8 = new TextDecoder('utf-8', { fatal: false });

/** git's own test: a NUL in the first 8000 bytes makes a file binary. */
function isBinary(b: Uint8Array): boolean {
  return b.subarray(0, 8000).includes(0);
}

/** Picks what fits in `budgetBytes`, whole files in path order (see the module comment). */
export function packFileContext(budgetBytes: number, candidates: ContextCandidate[]): FileContext {
  const out: FileContext = { included: [], omitted: [], budgetBytes, usedBytes: 0 };
  const { picks, usedBytes } = pick(budgetBytes, candidates);
  for (const { c, take } of picks)
    if (take === 'included' && c.content !== null)
      out.included.push({ path: c.path, text: utf8.decode(c.content) });
    else out.omitted.push({ path: c.path, reason: take === 'included' ? 'over_budget' : take });
  out.usedBytes = usedBytes;
  return out;
}

/**
 * Which of `files` to read next so that packFileContext over the files read
 * (the rest passed with null content) picks exactly what it would pick over
 * every file's content: the same greedy pass in path order, run on sizes
 * known ahead (Git.blobSizes). A file of unknown size is read; a read file
 * counts as what it is (a binary one takes no budget, so the files after it
 * may then fit: the caller asks again until nothing is left to read). A file
 * that does not fit by its size is never read, and is named over the budget
 * whatever its content.
 */
export function contextReads(
  budgetBytes: number,
  files: readonly { path: string; bytes: number | undefined }[],
  read: ReadonlyMap<string, Uint8Array>,
): string[] {
  let left = budgetBytes;
  const next: string[] = [];
  for (const f of [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))) {
    const content = read.get(f.path);
    if (content !== undefined) {
      if (!isBinary(content) && content.length <= left) left -= content.length;
    } else if (f.bytes === undefined) next.push(f.path);
    else if (f.bytes <= left) {
      // Taken as text until read: a binary file frees its share on the next pass.
      next.push(f.path);
      left -= f.bytes;
    }
  }
  return next;
}

function pick(
  budgetBytes: number,
  candidates: ContextCandidate[],
): { picks: { c: ContextCandidate; take: 'included' | OmitReason }[]; usedBytes: number } {
  let left = budgetBytes;
  const picks = [...candidates]
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
    .map((c) => {
      if (c.inDiff) return { c, take: OmitReason.in_diff };
      if (c.content !== null && isBinary(c.content)) return { c, take: OmitReason.binary };
      if (c.content === null || c.content.length > left) return { c, take: OmitReason.over_budget };
      left -= c.content.length;
      return { c, take: 'included' as const };
    });
  return { picks, usedBytes: budgetBytes - left };
}

/** A fence longer than any run of backticks in the text, so no file can close it early. */
function fenceFor(text: string): string {
  return '`'.repeat(Math.max(3, longestBacktickRun(text) + 1));
}

const REASON_WORDS: Record<OmitReason, string> = {
  over_budget: 'over the context budget',
  binary: 'binary',
  in_diff: 'whole in the diff above',
};

/** The prompt section: each included file fenced under its path, then the omitted ones by reason. */
export function renderFileContext(ctx: FileContext): string {
  if (ctx.included.length === 0 && ctx.omitted.length === 0) return '';
  const parts = [
    `## Changed files at the revision under review (whole files, up to ${ctx.budgetBytes} bytes)`,
  ];
  for (const f of ctx.included) {
    const fence = fenceFor(f.text);
    parts.push(`### ${f.path}\n${fence}\n${f.text}${f.text.endsWith('\n') ? '' : '\n'}${fence}`);
  }
  for (const reason of Object.values(OmitReason)) {
    const paths = ctx.omitted.filter((o) => o.reason === reason).map((o) => o.path);
    if (paths.length > 0) parts.push(`Not included (${REASON_WORDS[reason]}): ${paths.join(', ')}`);
  }
  return parts.join('\n\n');
}
