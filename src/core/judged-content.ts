/**
 * Invariant 16: a settlement covers only what the person saw. A finding
 * records a digest of what it judged at its revision (the file and the text of
 * its lines; for a protected path, that path's blob), and a person's decision
 * carries over to another finding only when the claim, that digest and the
 * place are the same. A new edit of a protected file, or the same claim text
 * on other lines or other content, needs a new decision.
 */
import type { Hash } from './canonical-json.js';
import type { FindingRow, Settlement } from './ledger.js';
import type { LineRange } from './progress.js';

const ABSENT = '\u0000absent';

/** The lines [line, endLine] of `file` as they read at the finding's revision (`text` null: no such file). */
export function linesDigest(
  file: string,
  text: string | null,
  line: number,
  endLine: number,
  hash: Hash,
): string {
  const lines =
    text === null
      ? ABSENT
      : text
          .split('\n')
          .slice(line - 1, Math.max(line, endLine))
          .join('\n');
  return hash(`judged-lines:${file}\n${line <= endLine ? endLine - line + 1 : 1}\n${lines}`);
}

/** A protected path's blob at the revision (`base64` null: the revision deletes or renames it away). */
export const blobDigest = (path: string, base64: string | null, hash: Hash): string =>
  hash(`judged-blob:${path}\n${base64 ?? ABSENT}`);

/** A first-hand decision (not itself carried over) that another finding may inherit. */
export const isFirstHand = (f: FindingRow): boolean => f.settlement !== null && !f.settlement.origin;

/**
 * Whether the person's decision on `judged` covers `f`: the same reviewer,
 * file and claim are the caller's (the fingerprint); here the same judged
 * content, and for a reviewer's finding the same place: `judgedNow` is where
 * the judged lines went at `f`'s revision (null when their file is gone).
 * A protected path's place is its path, and its content the blob.
 */
export function decisionCovers(
  judged: FindingRow,
  f: FindingRow,
  judgedNow: { file: string; range: LineRange } | null,
  controllerReviewer: string,
): boolean {
  if (!isFirstHand(judged) || !judged.content || judged.content !== f.content) return false;
  if (judged.reviewer !== f.reviewer || judged.reported.file !== f.reported.file) return false;
  if (f.reviewer === controllerReviewer) return true;
  const end = f.reported.endLine ?? f.reported.line;
  return (
    judgedNow !== null &&
    judgedNow.file === f.reported.file &&
    judgedNow.range.start === f.reported.line &&
    judgedNow.range.end === end
  );
}

/**
 * Invariant 16's candidates for `f`: the first-hand decisions of the change's
 * other runs on the same claim (`prior` by fingerprint) and the same judged
 * content, the latest decision first. None for a finding settled already or
 * with no judged content. Which of them covers `f` depends on where the judged
 * lines went (decisionCovers), a git fact the caller reads for each in turn.
 */
export function settlementCandidates(
  f: FindingRow,
  prior: ReadonlyMap<string, readonly FindingRow[]>,
  fingerprint: string,
): FindingRow[] {
  if (f.settlement || !f.content) return [];
  return (prior.get(fingerprint) ?? [])
    .filter((j) => j.runId !== f.runId && j.content === f.content)
    .sort((a, b) => (b.settlement?.at ?? 0) - (a.settlement?.at ?? 0));
}

/**
 * The settlement `f` inherits from `judged`: the person's name and time, a
 * note naming that decision (who, when, which run) before the person's own
 * words, and the finding they judged. Always the first-hand decision, so a
 * chain of runs names it once instead of nesting "carried over from".
 * `when` is the decision's time as the caller writes it (core reads no clock).
 */
export function carriedSettlement(judged: FindingRow, when: string): Settlement {
  const s = judged.settlement as Settlement;
  const from = `carried over from ${s.by}'s decision of ${when} in run ${judged.runId} (finding ${judged.id})`;
  return {
    by: s.by,
    decision: s.decision,
    note: s.note ? `${from}: ${s.note}` : from,
    at: s.at,
    origin: { findingId: judged.id, runId: judged.runId },
  };
}
