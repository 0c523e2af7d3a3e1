/**
 * Refutations remembered, bound to what they judged (invariants 10 and 16).
 * A refuter's first-hand decision on a claim covers a later raise of that
 * claim only on the same content at the same place, judged by the same
 * refuter, on the same change: then the refutation is answered from memory
 * (no refuter call, no rework) and names where it was first made. Any
 * difference (the lines' text, the place, the claim, the severity, the
 * reviewer, the file, the refuter, the change) sends the raise to the
 * refuter again. Pure: the refute stage gathers the facts, replay reads them
 * back from the stage's result.
 */
import type { Hash } from './canonical-json.js';
import { findingFingerprint } from './keys.js';
import type { FindingRow, Refutation, RefutationOrigin, RunRow } from './ledger.js';
import type { LineRange } from './progress.js';
import type { Severity } from './types.js';

/** A first-hand refuter decision of the change, as the stage read it from the ledger. */
export interface JudgedRefutation {
  findingId: string;
  runId: string;
  /** When the judging run was admitted, then the round: the latest decision wins. */
  runCreatedAt: number;
  round: number;
  /** The change (repository and change id) the judging run belongs to. */
  changeKey: string;
  reviewer: string;
  file: string;
  line: number;
  endLine: number;
  revision: string;
  fingerprint: string;
  /** Severity after gating, and as the reviewer reported it. */
  severity: Severity;
  reportedSeverity: Severity;
  /** The judged lines' digest (FindingRow.content); null on rows recorded before it: never applied. */
  content: string | null;
  /** The judging run's refuter identity (its identity digest); null: unknown, never applied. */
  refuter: string | null;
  refutation: Refutation;
}

/** One remembered decision that may answer one finding of the round, with where its lines went (a git fact). */
export interface MemoryFact {
  /** The finding of this round it may answer. */
  forFinding: string;
  judged: JudgedRefutation;
  /** Where the judged lines lie at the finding's revision; null when their file is gone or unknown. */
  now: { file: string; range: LineRange } | null;
}

/** What the memory is checked against: the run's change and its refuter's identity. */
export interface MemoryJudge {
  changeKey: string;
  /** The run's refuter identity digest; null or absent: nothing is remembered. */
  refuter: string | null | undefined;
}

/** The judge of a run's memory: its change and the refuter its snapshot froze. */
export const memoryJudge = (run: Pick<RunRow, 'changeKey' | 'snapshot'>): MemoryJudge => ({
  changeKey: run.changeKey,
  refuter: run.snapshot.refuter?.identityDigest,
});

/** A first-hand decision: one the refuter made itself, not one answered from memory. */
export const isFirstHandRefutation = (r: Refutation | null): r is Refutation => r !== null && !r.origin;

/** The judged facts of a finding the refuter decided first-hand (null for any other). */
export function judgedRefutation(
  f: FindingRow,
  run: { changeKey: string; createdAt: number; refuter: string | null },
  hash: Hash,
): JudgedRefutation | null {
  if (!isFirstHandRefutation(f.refutation)) return null;
  return {
    findingId: f.id,
    runId: f.runId,
    runCreatedAt: run.createdAt,
    round: f.round,
    changeKey: run.changeKey,
    reviewer: f.reviewer,
    file: f.reported.file,
    line: f.reported.line,
    endLine: f.reported.endLine ?? f.reported.line,
    revision: f.revision,
    fingerprint: findingFingerprint(f.reviewer, f.reported.file, f.reported.claim, hash),
    severity: f.severity,
    reportedSeverity: f.reported.severity,
    content: f.content ?? null,
    refuter: run.refuter,
    refutation: f.refutation,
  };
}

/**
 * The remembered decisions worth asking git about for `f`: the same
 * fingerprint and judged content, another finding, latest first. None for a
 * finding with no judged content. Which one covers it depends on where the
 * judged lines went (`memoryCovers`).
 */
export function memoryCandidates(
  f: FindingRow,
  judged: readonly JudgedRefutation[],
  hash: Hash,
): JudgedRefutation[] {
  if (!f.content) return [];
  const fp = findingFingerprint(f.reviewer, f.reported.file, f.reported.claim, hash);
  return judged
    .filter((j) => j.findingId !== f.id && j.fingerprint === fp && j.content === f.content)
    .sort(latestFirst);
}

const latestFirst = (a: JudgedRefutation, b: JudgedRefutation) =>
  b.runCreatedAt - a.runCreatedAt || b.round - a.round || (a.findingId < b.findingId ? -1 : 1);

/**
 * Whether the remembered decision in `fact` covers `f`: everything the
 * refuter judged is the same (change, reviewer, file, claim, both
 * severities, the lines' digest, the place they now lie) and the same
 * refuter judges now. The memory never covers more than the content it saw.
 */
export function memoryCovers(fact: MemoryFact, f: FindingRow, judge: MemoryJudge, hash: Hash): boolean {
  const j = fact.judged;
  if (fact.forFinding !== f.id || j.findingId === f.id || !isFirstHandRefutation(j.refutation)) return false;
  if (!j.content || !f.content || j.content !== f.content) return false;
  if (!judge.refuter || j.refuter !== judge.refuter || j.changeKey !== judge.changeKey) return false;
  if (j.reviewer !== f.reviewer || j.file !== f.reported.file) return false;
  if (j.severity !== f.severity || j.reportedSeverity !== f.reported.severity) return false;
  if (j.fingerprint !== findingFingerprint(f.reviewer, f.reported.file, f.reported.claim, hash)) return false;
  const end = f.reported.endLine ?? f.reported.line;
  const now = fact.now;
  return (
    now !== null &&
    now.file === f.reported.file &&
    now.range.start === f.reported.line &&
    now.range.end === end
  );
}

/** A refutation answered from memory: it always names its origin. */
export type RememberedRefutation = Refutation & { origin: RefutationOrigin };

/** The refutation a remembered decision records: its words say where it was made, its origin makes it checkable. */
export function rememberedRefutation(j: JudgedRefutation): RememberedRefutation {
  const r = j.refutation;
  const origin: RefutationOrigin = {
    runId: j.runId,
    round: j.round,
    findingId: j.findingId,
    callKey: r.callKey,
  };
  return {
    decision: 'refuted',
    by: r.by,
    reason: `refuted earlier in run ${j.runId}, round ${j.round}, by ${r.by}: ${r.reason}`,
    callKey: r.callKey,
    origin,
  };
}

/**
 * Of `blockers`, those answered from memory and the rest. For each finding the
 * latest covering decision speaks: a refutation answers it; an upheld
 * decision answers nothing (the finding goes to the refuter again, so an
 * earlier refutation it overrode never comes back).
 */
export function answerFromMemory(
  blockers: readonly FindingRow[],
  facts: readonly MemoryFact[],
  judge: MemoryJudge,
  hash: Hash,
): { remembered: { findingId: string; refutation: RememberedRefutation }[]; rest: FindingRow[] } {
  const remembered: { findingId: string; refutation: RememberedRefutation }[] = [];
  const rest: FindingRow[] = [];
  for (const f of blockers) {
    const covering = facts
      .filter((x) => memoryCovers(x, f, judge, hash))
      .map((x) => x.judged)
      .sort(latestFirst)[0];
    if (covering?.refutation.decision === 'refuted')
      remembered.push({ findingId: f.id, refutation: rememberedRefutation(covering) });
    else rest.push(f);
  }
  return { remembered, rest };
}
