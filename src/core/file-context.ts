/**
 * The changed files' post-change content an API reviewer's prompt carries
 * (issue 17, point 5): a model that cannot read the checkout sees the code
 * around the hunks. Within a byte budget, files are taken whole in path
 * order; one that does not fit is left out (named in the prompt) and the
 * next ones are still tried, so one large file does not starve the rest.
 * Pure: the review stage reads the files and passes them in.
 */

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
} as const;
export type OmitReason = (typeof OmitReason)[keyof typeof OmitReason];

/** A changed file at the revision: its bytes, or null when they were not read (the budget was spent). */
export interface ContextCandidate {
  path: string;
  content: Uint8Array | null;
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
    else out.omitted.push({ path: c.path, reason: take === 'binary' ? 'binary' : 'over_budget' });
  out.usedBytes = usedBytes;
  return out;
}

/**
 * The bytes packFileContext would include, without decoding a file: a reader that
 * reads until the budget is spent asks this after each batch (P9: decoding every
 * file read so far after each batch was most of a large change's context time).
 */
export function contextBytesUsed(budgetBytes: number, candidates: ContextCandidate[]): number {
  return pick(budgetBytes, candidates).usedBytes;
}

function pick(
  budgetBytes: number,
  candidates: ContextCandidate[],
): { picks: { c: ContextCandidate; take: 'included' | OmitReason }[]; usedBytes: number } {
  let left = budgetBytes;
  const picks = [...candidates]
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
    .map((c) => {
      if (c.content !== null && isBinary(c.content)) return { c, take: OmitReason.binary };
      if (c.content === null || c.content.length > left) return { c, take: OmitReason.over_budget };
      left -= c.content.length;
      return { c, take: 'included' as const };
    });
  return { picks, usedBytes: budgetBytes - left };
}

/** A fence longer than any run of backticks in the text, so no file can close it early. */
function fenceFor(text: string): string {
  let longest = 0;
  for (const m of text.matchAll(/`+/g)) longest = Math.max(longest, m[0].length);
  return '`'.repeat(Math.max(3, longest + 1));
}

const REASON_WORDS: Record<OmitReason, string> = {
  over_budget: 'over the context budget',
  binary: 'binary',
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
