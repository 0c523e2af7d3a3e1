/**
 * Prompts for the three roles. The prompt text is what gets hashed into the
 * call key, so it is built only from frozen inputs: the diff of the revision,
 * the criteria, the role's instructions, (API reviewers) the changed files'
 * content at the revision and (refuter, fixer) the claims.
 *
 * Reviewer and refuter prompts put what every call of a revision shares
 * first (the rules, criteria, diff and file content) and what this call
 * alone carries last, after CALL_PART_HEADING: the shared prefix is then
 * byte-identical across reviewers and rounds of one revision, which is what
 * an endpoint's prompt cache matches on.
 */
import { unquotedNames } from './c-quote.js';
import { type FileContext, renderFileContext } from './file-context.js';
import type { ReportedFinding } from './types.js';

export const PROMPT_TEMPLATE_VERSION = 'revloop-prompts/2';

/** Opens the part of a prompt that is this call's own (the reviewer, the claim); everything before it is shared. */
export const CALL_PART_HEADING = '## For this call';
const CALL_PART_MARK = `\n\n${CALL_PART_HEADING}\n`;

const REVIEWER_RULES = `You are a code reviewer. Review ONLY the changes in the diff below against the review criteria
(the files' full content, when given after the diff, is context: raise nothing on lines the diff does not change).
Reply with ONE JSON object and nothing else:
{ "verdict": "pass" | "findings",
  "findings": [ { "severity": "MAJOR" | "MODERATE" | "MINOR", "file": "path/in/repo", "line": 10, "endLine": 12,
                  "claim": "...", "failureScenario": "...", "violatedClause": "...", "missedBecause": "..." } ] }
Rules:
- A MAJOR or MODERATE finding must name a concrete failure scenario (the input or state, and the wrong outcome)
  in "failureScenario", or quote the exact criteria clause it violates in "violatedClause". Otherwise it is
  recorded as MINOR and does not block.
- "file" is a path inside the repository; "line" refers to the file at the revision under review.
- If you raise again an issue on a line you already passed, say in "missedBecause" what the earlier pass missed.
- "verdict": "pass" carries no findings.`;

const REFUTER_RULES = `You are a skeptical second reviewer with fresh context. You are given only the diff, the review
criteria and ONE claim made by another reviewer. Try to refute the claim: is the failure scenario real on this diff?
Reply with ONE JSON object and nothing else: { "decision": "upheld" | "refuted", "reason": "..." }`;

const FIXER_RULES = `You are the fixer. Your working directory is a checkout of the revision under review. Edit files
to fix the blockers listed below; do not commit (the controller commits your edit). Edit nothing outside the
repository. If you believe a blocker is wrong, do not change code for it: dispute it instead.
Reply with ONE JSON object and nothing else: { "disputed": [ { "finding": "<id>", "reason": "..." } ] }`;

export interface ReviewerPromptInput {
  reviewer: string;
  criteria: string;
  diff: string;
  instructions?: string | undefined;
  /** The changed files at the revision (API reviewers, which cannot read the checkout). */
  files?: FileContext | undefined;
  /** This prompt carries one part of a diff too large for one call. */
  part?: { index: number; count: number } | undefined;
}

export function reviewerPrompt(p: ReviewerPromptInput): string {
  const shared = [
    `# revloop review (${PROMPT_TEMPLATE_VERSION})`,
    REVIEWER_RULES,
    `## Review criteria\n${p.criteria}`,
    p.part
      ? `## Diff, part ${p.part.index + 1} of ${p.part.count}\nThe change is too large for one review; the other parts go to other calls. Judge only the files below.\n${unquotedNames(p.diff)}`
      : `## Diff\n${unquotedNames(p.diff)}`,
    p.files ? renderFileContext(p.files) : '',
  ];
  const own = [
    `${CALL_PART_HEADING}\nReviewer: ${p.reviewer}`,
    p.instructions ? `## Instructions for ${p.reviewer}\n${p.instructions}` : '',
  ];
  return [...shared, ...own].filter(Boolean).join('\n\n');
}

/**
 * A prompt cut where its own part begins: `shared + own` is the prompt, byte
 * for byte. Found from the text alone (the last CALL_PART_HEADING line), so
 * the prompt digest covers where an adapter cuts it; a prompt without one is
 * all own part.
 */
export function splitPrompt(prompt: string): { shared: string; own: string } {
  const at = prompt.lastIndexOf(CALL_PART_MARK);
  if (at <= 0) return { shared: '', own: prompt };
  return { shared: prompt.slice(0, at), own: prompt.slice(at) };
}

/** A diff cut to some of its files (core/focused-diff.ts): what the prompt says it holds. */
export interface DiffFocus {
  files: string[];
  /** Files the prompt needed but could not carry within the limit. */
  omitted: string[];
}

function diffHeading(title: string, focus: DiffFocus | undefined): string {
  if (!focus) return `## ${title}`;
  const left = focus.omitted.length > 0 ? ` Left out for size: ${focus.omitted.join(', ')}.` : '';
  return `## ${title}, of ${focus.files.join(', ')} only\nThe change is too large for one prompt; the rest of it is not shown.${left}`;
}

export function refuterPrompt(p: {
  criteria: string;
  diff: string;
  claim: ReportedFinding;
  instructions?: string | undefined;
  /** The diff is the claim's file's part of a larger change. */
  focus?: DiffFocus | undefined;
  /** The claim's file at the revision (API refuters), within review.contextBytes. */
  files?: FileContext | undefined;
}): string {
  const c = p.claim;
  return [
    `# revloop refutation (${PROMPT_TEMPLATE_VERSION})`,
    REFUTER_RULES,
    p.instructions ?? '',
    `## Review criteria\n${p.criteria}`,
    `${diffHeading('Diff', p.focus)}\n${unquotedNames(p.diff)}`,
    p.files ? renderFileContext(p.files) : '',
    `${CALL_PART_HEADING}\n## The claim\nSeverity: ${c.severity}\nFile: ${c.file}:${c.line}${c.endLine ? `-${c.endLine}` : ''}\nClaim: ${c.claim}\nFailure scenario: ${c.failureScenario ?? '(none given)'}\nViolated clause: ${c.violatedClause ?? '(none given)'}`,
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
}): string {
  const list = p.blockers
    .map(
      ({ id, finding: f }) =>
        `- id: ${id}\n  ${f.severity} ${f.file}:${f.line}${f.endLine ? `-${f.endLine}` : ''}\n  claim: ${f.claim}\n  scenario: ${f.failureScenario ?? '-'}\n  clause: ${f.violatedClause ?? '-'}`,
    )
    .join('\n');
  return [
    `# revloop fix (${PROMPT_TEMPLATE_VERSION})`,
    FIXER_RULES,
    p.instructions ?? '',
    `## Review criteria\n${p.criteria}`,
    `## Blockers to fix\n${list}`,
    `${diffHeading('Diff under review', p.focus)}${p.focus ? ' The checkout holds every file.' : ''}\n${unquotedNames(p.diff)}`,
  ]
    .filter(Boolean)
    .join('\n\n');
}

/** The digest of the template text of each role, pinned in the snapshot. */
export const TEMPLATES = { reviewer: REVIEWER_RULES, refuter: REFUTER_RULES, fixer: FIXER_RULES };
