/**
 * The judge's part of matching, pure: which (finding, defect) pairs a judge
 * is asked about, the prompt it gets, the call key its decision is recorded
 * under, and how its yes-answers become a one-to-one matching per reviewer.
 */
import { canonicalJson, type Hash } from '../core/canonical-json.js';
import { FENCE_RULES, fence } from '../core/fence.js';
import type { EvalFinding } from './case-result.js';
import type { Defect } from './corpus-schema.js';

export interface JudgePair {
  finding: number;
  defect: number;
}

/**
 * Every finding against every defect the judge decides, except where the
 * defect names a file and the finding is on another one (position matching's
 * first condition, kept: a finding on another file does not describe it).
 * Findings already matched by position are left out.
 */
export function judgePairs(
  findings: readonly EvalFinding[],
  defects: readonly Defect[],
  judged: readonly number[],
  matched: readonly (number | null)[],
): JudgePair[] {
  const out: JudgePair[] = [];
  findings.forEach((f, fi) => {
    if (matched[fi] !== null && matched[fi] !== undefined) return;
    for (const di of judged) {
      const d = defects[di];
      if (d && (d.file === undefined || d.file === f.file)) out.push({ finding: fi, defect: di });
    }
  });
  return out;
}

/** What the judge reads: the known defect, the finding, and the reply it owes. */
export function judgePrompt(caseId: string, f: EvalFinding, d: Defect, hash: Hash): string {
  const where = (file: string | undefined, line?: number, end?: number) =>
    file === undefined
      ? '(no file given)'
      : line === undefined
        ? file
        : `${file}:${line}${end !== undefined && end !== line ? `-${end}` : ''}`;
  return [
    'You judge a code-review evaluation. Decide whether the FINDING a reviewer made describes',
    'the same underlying problem as the KNOWN DEFECT of this change (wording may differ; the same',
    'defect means the same fix would address both).',
    FENCE_RULES,
    '',
    `Case: ${caseId}`,
    '',
    'KNOWN DEFECT',
    `  where: ${where(d.file, d.line, d.endLine)}`,
    `  severity: ${d.severity}`,
    `  description: ${d.description}`,
    '',
    'FINDING',
    // A reviewer wrote it after reading the change: data, however it reads.
    fence(
      [
        `  reviewer: ${f.reviewer}`,
        `  where: ${where(f.file, f.line, f.endLine)}`,
        `  severity: ${f.severity}`,
        `  claim: ${f.claim}`,
      ].join('\n'),
      hash,
    ),
    '',
    'Reply with JSON only: { "matches": true | false, "reason": "one sentence" }',
  ].join('\n');
}

/** One judgement's call key: the case's run, the judge, the pair and the exact prompt. */
export const judgeCallKey = (
  p: { runId: string; judge: string; finding: number; defect: number; promptDigest: string },
  hash: Hash,
): string => hash(`judge-call:${canonicalJson(p)}`);

/**
 * Adds the judged matches to the position ones, one-to-one per reviewer: a
 * finding matches at most one defect and a defect at most one finding of
 * that reviewer; pairs are taken in (finding, defect) order.
 */
export function assignJudged(
  findings: readonly EvalFinding[],
  yes: readonly JudgePair[],
  matched: readonly (number | null)[],
): (number | null)[] {
  const out = findings.map((_, i) => matched[i] ?? null);
  const sorted = [...yes].sort((a, b) => a.finding - b.finding || a.defect - b.defect);
  for (const p of sorted) {
    const f = findings[p.finding];
    if (!f || out[p.finding] !== null) continue;
    const taken = out.some((m, i) => m === p.defect && findings[i]?.reviewer === f.reviewer);
    if (!taken) out[p.finding] = p.defect;
  }
  return out;
}
