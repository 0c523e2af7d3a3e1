/**
 * Schemas of what reviewers, refuters and fixers send back: parsed at the
 * boundary, plain data after it. A reply that fails them is `malformed`
 * (never retried, never clear).
 */
import { z } from 'zod';
import type { FixerReply, JudgeReply, RefuterReply, ReviewerReply, Role } from './types.js';

const usage = z.object({ costUsd: z.number().finite().nonnegative().optional() }).loose().optional();
const nonEmpty = z.string().trim().min(1);

export const reportedFindingSchema = z.object({
  severity: z.enum(['MAJOR', 'MODERATE', 'MINOR']),
  file: nonEmpty,
  line: z.number().int().positive(),
  endLine: z.number().int().positive().optional(),
  claim: nonEmpty,
  failureScenario: z.string().optional(),
  violatedClause: z.string().optional(),
  missedBecause: z.string().optional(),
});

export const reviewerReplySchema = z
  .object({
    verdict: z.enum(['pass', 'findings']),
    findings: z.array(reportedFindingSchema),
    model: z.string().optional(),
    usage,
  })
  .refine((r) => r.verdict === 'findings' || r.findings.length === 0, {
    message: 'verdict "pass" must carry no findings',
    path: ['findings'],
  })
  .refine((r) => r.verdict === 'pass' || r.findings.length > 0, {
    message: 'verdict "findings" must carry at least one finding',
    path: ['findings'],
  });

export const refuterReplySchema = z.object({
  decision: z.enum(['upheld', 'refuted']),
  reason: nonEmpty,
  model: z.string().optional(),
  usage,
});

export const fixerReplySchema = z.object({
  disputed: z.array(z.object({ finding: nonEmpty, reason: nonEmpty })).default([]),
  model: z.string().optional(),
  usage,
});

export const judgeReplySchema = z.object({
  matches: z.boolean(),
  reason: nonEmpty,
  model: z.string().optional(),
  usage,
});

/** The roles whose replies need no check beyond their schema. */
const OTHER_SCHEMAS = {
  refuter: refuterReplySchema,
  fixer: fixerReplySchema,
  judge: judgeReplySchema,
} as const satisfies Record<Exclude<Role, 'reviewer'>, z.ZodType>;

export type ParsedReply =
  | { ok: true; reply: ReviewerReply | RefuterReply | FixerReply | JudgeReply }
  | { ok: false; detail: string };

/** Validates a reply for a role; the detail names the JSON path of the first problem. */
export function parseReply(
  role: Role,
  value: unknown,
  repoPathOk: (p: string) => boolean = isInsideRepo,
): ParsedReply {
  if (role !== 'reviewer') {
    const res = OTHER_SCHEMAS[role].safeParse(value);
    return res.success ? { ok: true, reply: res.data } : { ok: false, detail: problemOf(res.error) };
  }
  const res = reviewerReplySchema.safeParse(value);
  if (!res.success) return { ok: false, detail: problemOf(res.error) };
  const reply: ReviewerReply = res.data;
  const bad = reply.findings.findIndex((f) => !repoPathOk(f.file));
  if (bad >= 0)
    return {
      ok: false,
      detail: `$.findings.${bad}.file: path escapes the repository: ${reply.findings[bad]?.file}`,
    };
  if (reply.findings.some((f) => f.endLine !== undefined && f.endLine < f.line)) {
    return { ok: false, detail: '$.findings: endLine before line' };
  }
  // Once, here: every later step (the line check, gating, fingerprints, the forge) sees git's spelling.
  return {
    ok: true,
    reply: { ...reply, findings: reply.findings.map((f) => ({ ...f, file: repoPath(f.file) })) },
  };
}

/**
 * A path inside the repository as git spells it: `.` and empty segments left
 * out, so a reviewer's `./tests/x.rs` or `src//a.rs` is the diff's
 * `tests/x.rs` and `src/a.rs` (on the diff, one fingerprint).
 */
const repoPath = (p: string): string =>
  p
    .split('/')
    .filter((s) => s !== '.' && s !== '')
    .join('/');

/** The JSON path of the first problem, and what it is. */
function problemOf(error: z.ZodError): string {
  const issue = error.issues[0];
  const path = issue ? ['$', ...issue.path].join('.') : '$';
  return `${path}: ${issue?.message ?? 'invalid'}`;
}

/** A repository-relative path that cannot leave the repository: no absolute path, no `..` segment. */
export function isInsideRepo(p: string): boolean {
  if (p.length === 0 || p.includes('\0')) return false;
  if (p.startsWith('/') || p.startsWith('\\') || /^[A-Za-z]:/.test(p)) return false;
  const parts = p.split(/[\\/]+/);
  return !parts.some((s) => s === '..') && parts.some((s) => s !== '.' && s !== '');
}

/** Counts the characters a scan looks at, so tests can bound its work per byte without a clock. */
export interface ScanSteps {
  steps: number;
}

/**
 * Extracts the JSON object from an agent's text: the whole text, or one fenced ```json block.
 * Linear in the text: a reply is the change's author's text (through prompt injection), and
 * the backtracking regex this replaces spent minutes on a reply of backticks and newlines.
 */
export function extractJson(
  text: string,
  counter?: ScanSteps,
): { ok: true; value: unknown } | { ok: false; detail: string } {
  const trimmed = text.trim();
  if (trimmed.length === 0) return { ok: false, detail: 'empty output' };
  const body = fencedBody(trimmed, counter);
  try {
    return { ok: true, value: JSON.parse(body ?? trimmed) };
  } catch (err) {
    return { ok: false, detail: `not JSON: ${(err as Error).message.slice(0, 120)}` };
  }
}

const FENCE = '```';
const NEWLINE = 10;

/**
 * The body of a text that is exactly one fenced block, else null: "```" or "```json",
 * blanks ending in a newline, the body, then a newline and "```" ending the text. When the
 * blanks hold several newlines the body starts after the last one that leaves room for the
 * closing line, as `/^```(?:json)?\s*\n([\s\S]*?)\n```$/` chose. One pass over the blanks
 * after the opening fence; the rest is slicing.
 */
export function fencedBody(trimmed: string, counter?: ScanSteps): string | null {
  if (!trimmed.startsWith(FENCE) || !trimmed.endsWith(`\n${FENCE}`)) return null;
  const open = trimmed.startsWith('json', FENCE.length) ? FENCE.length + 4 : FENCE.length;
  const close = trimmed.length - FENCE.length - 1;
  let lastNewline = -1;
  for (let i = open; i < close; i++) {
    if (counter) counter.steps++;
    const c = trimmed.charCodeAt(i);
    if (!isSpace(c)) break;
    if (c === NEWLINE) lastNewline = i;
  }
  return lastNewline < 0 ? null : trimmed.slice(lastNewline + 1, close);
}

/** What `\s` matches in a JavaScript regex (the whitespace and line terminators `trim` removes). */
function isSpace(c: number): boolean {
  return (
    (c >= 9 && c <= 13) ||
    c === 32 ||
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}
