/**
 * Prompts for the three roles. The prompt text is what gets hashed into the
 * call key, so it is built only from frozen inputs: the diff of the revision,
 * the criteria, the role's instructions, (API reviewers) the changed files'
 * content at the revision and (refuter, fixer) the claims.
 *
 * What the change controls (criteria, diff, files) and what a reviewer wrote
 * (a claim) reaches the model fenced as data (core/fence.ts), under a marker
 * derived from the block's digest: the caller passes the hash, so the core
 * stays pure and equal inputs still give equal bytes.
 *
 * Reviewer and refuter prompts put what every call of a revision shares
 * first (the rules, criteria, diff and file content) and what this call
 * alone carries last, after CALL_PART_HEADING: the shared prefix is then
 * byte-identical across reviewers and rounds of one revision, which is what
 * an endpoint's prompt cache matches on.
 */

import { unquotedNames } from './c-quote.js';
import type { Hash } from './canonical-json.js';
import { FENCE_RULES, fence, fencedSpans } from './fence.js';
import { type FileContext, renderFileContext } from './file-context.js';
import type { ReportedFinding } from './types.js';

export const PROMPT_TEMPLATE_VERSION = 'revloop-prompts/3';

/** Opens the part of a prompt that is this call's own (the reviewer, the claim); everything before it is shared. */
export const CALL_PART_HEADING = '## For this call';
const CALL_PART_MARK = `\n\n${CALL_PART_HEADING}\n`;

const SEVERITIES = `Severity grades how wrong the work is, not how large the fix is:
- MAJOR: the work is wrong or carries a severe flaw; an incremental fix is unlikely to reach the right answer.
- MODERATE: the outcome is right but the execution is not, usually a violation of the criteria or the standards.
- MINOR: fixable without another look.`;

const REVIEWER_RULES = `You are a code reviewer. Review ONLY the changes in the diff below against the review criteria
(the files' full content, when given after the diff, is context: raise nothing on lines the diff does not change).
Reply with ONE JSON object and nothing else:
{ "verdict": "pass" | "findings",
  "findings": [ { "severity": "MAJOR" | "MODERATE" | "MINOR", "file": "path/in/repo", "line": 10, "endLine": 12,
                  "claim": "...", "failureScenario": "...", "violatedClause": "...", "missedBecause": "..." } ] }
${SEVERITIES}
Rules:
- A MAJOR or MODERATE finding must name a concrete failure scenario (the input or state, and the wrong outcome)
  in "failureScenario", or quote the exact criteria clause it violates in "violatedClause". Otherwise it is
  recorded as MINOR and does not block.
- "file" is a path inside the repository; "line" refers to the file at the revision under review.
- If you raise again an issue on a line you already passed, say in "missedBecause" what the earlier pass missed.
- "verdict": "pass" carries no findings.
${FENCE_RULES}`;

const REFUTER_RULES = `You are a skeptical second reviewer with fresh context. You are given only the diff, the review
criteria and ONE claim made by another reviewer. Try to refute the claim: is the failure scenario real on this diff,
and does the claim's severity hold by the definitions below? Uphold it only if both hold; a MAJOR or MODERATE claim
that is only MINOR by them is refuted, and "reason" says so.
${SEVERITIES}
Reply with ONE JSON object and nothing else: { "decision": "upheld" | "refuted", "reason": "..." }
${FENCE_RULES}`;

const FIXER_RULES = `You are the fixer. Your working directory is a checkout of the revision under review. Edit files
to fix the blockers listed below; do not commit (the controller commits your edit). Edit nothing outside the
repository. If you believe a blocker is wrong, do not change code for it: dispute it instead.
Reply with ONE JSON object and nothing else: { "disputed": [ { "finding": "<id>", "reason": "..." } ] }
${FENCE_RULES}`;

/** A block of data under its heading: the heading is ours, the fenced text is not. */
const dataBlock = (heading: string, content: string, hash: Hash) => `${heading}\n${fence(content, hash)}`;

/** The file context's heading stays outside the fence; the files and the names left out are data. */
function fileBlock(files: FileContext | undefined, hash: Hash): string {
  const text = files ? renderFileContext(files) : '';
  if (text === '') return '';
  const cut = text.indexOf('\n');
  return dataBlock(text.slice(0, cut), text.slice(cut + 1).replace(/^\n/, ''), hash);
}

export interface ReviewerPromptInput {
  reviewer: string;
  criteria: string;
  diff: string;
  instructions?: string | undefined;
  /** The changed files at the revision (API reviewers, which cannot read the checkout). */
  files?: FileContext | undefined;
  /**
   * This prompt carries one part of a diff too large for one call. Which part,
   * and of how many, is left out: a count that changes when another part
   * appears would change every part's prompt.
   */
  onePart?: boolean | undefined;
  /** Derives the fences' markers (sha256 hex in production). */
  hash: Hash;
}

export function reviewerPrompt(p: ReviewerPromptInput): string {
  const diffHeading = p.onePart
    ? '## Diff, one part of a larger change\nThe change is too large for one review; other parts go to other calls. Judge only the files below.'
    : '## Diff';
  const shared = [
    `# revloop review (${PROMPT_TEMPLATE_VERSION})`,
    REVIEWER_RULES,
    dataBlock('## Review criteria', p.criteria, p.hash),
    dataBlock(diffHeading, unquotedNames(p.diff), p.hash),
    fileBlock(p.files, p.hash),
  ];
  const own = [
    `${CALL_PART_HEADING}\nReviewer: ${p.reviewer}`,
    p.instructions ? `## Instructions for ${p.reviewer}\n${p.instructions}` : '',
  ];
  return [...shared, ...own].filter(Boolean).join('\n\n');
}

/**
 * A prompt cut where its own part begins: `shared + own` is the prompt, byte
 * for byte. Found from the text alone (the last CALL_PART_HEADING line
 * outside the data blocks), so the prompt digest covers where an adapter cuts
 * it; a prompt without one is all own part.
 */
export function splitPrompt(prompt: string): { shared: string; own: string } {
  const spans = fencedSpans(prompt);
  const inBlock = (i: number) => spans.some(([start, end]) => start <= i && i < end);
  let at = prompt.lastIndexOf(CALL_PART_MARK);
  // A heading inside a block is data (a claim may carry one): the cut is at ours.
  while (at > 0 && inBlock(at)) at = prompt.lastIndexOf(CALL_PART_MARK, at - 1);
  if (at <= 0) return { shared: '', own: prompt };
  return { shared: prompt.slice(0, at), own: prompt.slice(at) };
}

/** A diff cut to some of its files (core/focused-diff.ts): what the prompt says it holds. */
export interface DiffFocus {
  files: string[];
  /** Files the prompt needed but could not carry within the limit. */
  omitted: string[];
}

/** Paths are the change's: quoted, so that none can start a line of the heading. */
const pathList = (paths: string[]) => paths.map((f) => JSON.stringify(f)).join(', ');

function diffHeading(title: string, focus: DiffFocus | undefined): string {
  if (!focus) return `## ${title}`;
  const left = focus.omitted.length > 0 ? ` Left out for size: ${pathList(focus.omitted)}.` : '';
  return `## ${title}, of ${pathList(focus.files)} only\nThe change is too large for one prompt; the rest of it is not shown.${left}`;
}

const lines = (f: ReportedFinding) => `${f.line}${f.endLine ? `-${f.endLine}` : ''}`;

export function refuterPrompt(p: {
  criteria: string;
  diff: string;
  claim: ReportedFinding;
  instructions?: string | undefined;
  /** The diff is the claim's file's part of a larger change. */
  focus?: DiffFocus | undefined;
  /** The claim's file at the revision (API refuters), within review.contextBytes. */
  files?: FileContext | undefined;
  /** Derives the fences' markers (sha256 hex in production). */
  hash: Hash;
}): string {
  const c = p.claim;
  const claim = `Severity: ${c.severity}\nFile: ${c.file}:${lines(c)}\nClaim: ${c.claim}\nFailure scenario: ${c.failureScenario ?? '(none given)'}\nViolated clause: ${c.violatedClause ?? '(none given)'}`;
  return [
    `# revloop refutation (${PROMPT_TEMPLATE_VERSION})`,
    REFUTER_RULES,
    p.instructions ?? '',
    dataBlock('## Review criteria', p.criteria, p.hash),
    dataBlock(diffHeading('Diff', p.focus), unquotedNames(p.diff), p.hash),
    fileBlock(p.files, p.hash),
    dataBlock(`${CALL_PART_HEADING}\n## The claim`, claim, p.hash),
  ]
    .filter(Boolean)
    .join('\n\n');
}

export function fixerPrompt(p: {
  criteria: string;
  diff: string;
  blockers: { id: string; finding: ReportedFinding }[];
  instructions?: string | undefined;
  /** The diff is the blockers' files' part of a larger change. */
  focus?: DiffFocus | undefined;
  /** Derives the fences' markers (sha256 hex in production). */
  hash: Hash;
}): string {
  const list = p.blockers
    .map(
      ({ id, finding: f }) =>
        `- id: ${id}\n  ${f.severity} ${f.file}:${lines(f)}\n  claim: ${f.claim}\n  scenario: ${f.failureScenario ?? '-'}\n  clause: ${f.violatedClause ?? '-'}`,
    )
    .join('\n');
  return [
    `# revloop fix (${PROMPT_TEMPLATE_VERSION})`,
    FIXER_RULES,
    p.instructions ?? '',
    dataBlock('## Review criteria', p.criteria, p.hash),
    dataBlock('## Blockers to fix', list, p.hash),
    dataBlock(
      `${diffHeading('Diff under review', p.focus)}${p.focus ? ' The checkout holds every file.' : ''}`,
      unquotedNames(p.diff),
      p.hash,
    ),
  ]
    .filter(Boolean)
    .join('\n\n');
}

/** The digest of the template text of each role, pinned in the snapshot. */
export const TEMPLATES = { reviewer: REVIEWER_RULES, refuter: REFUTER_RULES, fixer: FIXER_RULES };
