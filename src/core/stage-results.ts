/**
 * What each stage records as its result, and what each role's verdict holds,
 * as types and as the schemas that parse them back out of the ledger
 * (core/stage-schemas.ts, applied by core/stored-rows.ts). A mapped type keyed by stage (Temporal's pattern):
 * a new stage does not compile until it has a result type and a schema, and a
 * reader asks `stage(rows, round, 'fix')` and gets a FixResult, never
 * `unknown` to cast.
 */
import type { Coverage } from './coverage.js';
import type { OpenBlocker, RoundDecision } from './decide.js';
import type { FindingRow, Refutation, RefutationOrigin, Settlement } from './ledger.js';
import type { CheckResult, ProgressEvidence, ProgressFacts } from './progress.js';
import type { MemoryFact } from './refute-memory.js';
import type { ScopeFacts } from './scope-lock.js';
import type { FixerReply, JudgeReply, RefuterReply, ReviewerReply, Role, Stage } from './types.js';

/** A finding on an ignored path, dropped with the rule that matched. */
export interface DroppedFinding {
  reviewer: string;
  callKey: string;
  /** The finding's index in its verdict's reply. */
  index: number;
  file: string;
  /** The ignore rule that matched its path. */
  rule: string;
}

export interface ReviewResult {
  head: string;
  /** One per reviewer, or per reviewer and chunk (configured order, then chunk order). */
  verdicts: {
    reviewer: string;
    callKey: string;
    verdict: 'pass' | 'findings';
    modelId: string | null;
    /** Present when the diff was reviewed in chunks: this call's chunk. */
    chunk?: { index: number; files: string[] };
    /** Present when the reviewer was sampled (`review.samples`): which sample, from 0. */
    sample?: number;
  }[];
  /** Scope facts per finding id, recorded so replay re-gates without git. */
  scope: Record<string, ScopeFacts>;
  /** Per reviewer, the files it was shown and those left out (absent in rounds recorded before coverage existed). */
  coverage?: Record<string, Coverage>;
  /** Findings on ignored paths, dropped with the rule that matched. */
  dropped?: DroppedFinding[];
  /** Paths the ignore rules match that the run's fixes edited: reviewed like any file (absent: none). */
  editedByFix?: string[];
  /**
   * A reviewer's findings were kept once per fingerprint across its calls (review-gating.ts);
   * absent in reviews recorded before, which replay as they were recorded.
   */
  onePerFingerprint?: true;
  protectedEdited: string[];
  reviewsComplete: true;
}

export interface RefuteResult {
  refuter: string | null;
  decisions: { findingId: string; callKey: string; decision: 'upheld' | 'refuted' }[];
  /** Blockers past `review.maxRefutedPerReply` of their reply: not sent, so they stand (absent: none). */
  overCap?: string[] | undefined;
  /**
   * The remembered decisions the planner weighed (core/refute-memory.ts), with
   * where their lines went: the facts replay decides the memory from again
   * (absent: none).
   */
  memory?: MemoryFact[] | undefined;
  /** Blockers answered from memory, not sent to the refuter, with the decision each repeats (absent: none). */
  remembered?: { findingId: string; origin: RefutationOrigin }[] | undefined;
}

export interface FixResult {
  from: string;
  commit: string | null;
  diffDigest: string;
  disputes: { findingId: string; reason: string }[];
  /** Ids the fixer named that are not among the blockers it was given. */
  unknownIds: string[];
  /** Why (some of) the fixer's edit did not land: edits inside a submodule. The round then shows no progress for it. */
  notLanded?: string;
  /**
   * Paths of the user's working tree that changed while the fixer ran: a warning only,
   * never the fixer's fault (a user's save looks the same).
   */
  userTreeChanged?: string[];
}

export interface ChecksResult {
  head: string;
  results: CheckResult[];
  /**
   * Round 0 only: the checks that failed on the change as admitted, run once
   * more at its merge base (the revision the change starts from), so that a
   * check the change broke is told from one that was already broken. Absent:
   * none failed, or the run was recorded before the base was checked.
   */
  base?: { commit: string; results: CheckResult[] };
}

export interface DecideResult {
  reviewsComplete: boolean;
  openBlockers: OpenBlocker[];
  blocking: number;
  /** Settlements as they stood when deciding. */
  settlements: Record<string, 'upheld' | 'overturned'>;
  progressFacts: ProgressFacts | null;
  evidence: ProgressEvidence | null;
  progress: boolean[];
  /** Invariant 12: the spend recorded when deciding (every verdict so far). */
  spentUsd: number;
  decision: RoundDecision;
}

/** Every stage's result type, keyed by stage: the one place a stage's result is named. */
export interface StageResults {
  review: ReviewResult;
  refute: RefuteResult;
  fix: FixResult;
  checks: ChecksResult;
  decide: DecideResult;
}

/** The recorded fixer reply: its JSON plus the commit the controller made of its edit. */
export interface RecordedFix extends FixerReply {
  commit: string | null;
  diffDigest: string;
  notLanded?: string;
  userTreeChanged?: string[];
}

/** What a verdict of each role holds (the fixer's carries the controller's commit of its edit). */
export interface Replies {
  reviewer: ReviewerReply;
  refuter: RefuterReply;
  fixer: RecordedFix;
  /** An eval's judge (its decisions are JudgementRows, never a run's verdicts). */
  judge: JudgeReply;
}
export type ReplyOf<R extends Role> = Replies[R];

/** A stage's result and its completion mark are one row, written in one transaction (invariant 5). */
export interface StageRowOf<S extends Stage> {
  runId: string;
  round: number;
  stage: S;
  snapshotKey: string;
  result: StageResults[S];
  completedAt: number;
}
/** A stage row of any stage: narrowed by `stage` (or `isStageRow`), its result is typed. */
export type StageRow = { [S in Stage]: StageRowOf<S> }[Stage];

/** Invariant 6: one verdict per call key, with the prompt digest and the model the endpoint reported. */
export interface VerdictRowOf<R extends Role> {
  callKey: string;
  runId: string;
  round: number;
  stage: Stage;
  role: R;
  reviewer: string;
  /** The revision (head sha) the call looked at. */
  revision: string;
  promptDigest: string;
  modelId: string | null;
  /** The validated reply. */
  reply: ReplyOf<R>;
  costUsd: number;
  recordedAt: number;
  /**
   * The digest of the call's complete input (core/keys.ts reuseKey), on a
   * call whose input is its prompt alone; absent on any other call, whose
   * verdict is then never reused.
   */
  reuseKey?: string | undefined;
  /** Present when the verdict was not asked for but reused from an identical call answered earlier. */
  reusedFrom?: ReusedFrom | undefined;
}

/** The call whose verdict was reused: the one first answered, also when reused through another. */
export interface ReusedFrom {
  callKey: string;
  runId: string;
  /** The revision that call looked at. */
  revision: string;
  /**
   * Whether that call's answering attempt ran confined: the record's
   * `confined` covers the processes whose verdicts it uses, also earlier
   * ones. Absent (a row from before it was kept): not known, so not confined.
   */
  confined?: boolean | undefined;
}
export type VerdictRow = { [R in Role]: VerdictRowOf<R> }[Role];

/** A verdict as a call hands it to the store: the reply as the adapter validated it. */
export type NewVerdict = Omit<VerdictRowOf<Role>, 'recordedAt' | 'reply'> & { reply: unknown };

export const isStageRow = <S extends Stage>(row: StageRow | StageRowOf<S>, s: S): row is StageRowOf<S> =>
  row.stage === s;

export const isRoleVerdict = <R extends Role>(
  v: VerdictRow | VerdictRowOf<R>,
  role: R,
): v is VerdictRowOf<R> => v.role === role;

/** The typed lookup: the row of `s` in `round`, or undefined. */
export function stageRow<S extends Stage>(
  rows: Iterable<StageRow>,
  round: number,
  s: S,
): StageRowOf<S> | undefined {
  for (const row of rows) if (row.round === round && isStageRow(row, s)) return row;
  return undefined;
}

/** The result `s` recorded in `round`, typed by stage, or undefined. */
export const stage = <S extends Stage>(
  rows: Iterable<StageRow>,
  round: number,
  s: S,
): StageResults[S] | undefined => stageRow(rows, round, s)?.result;

/** Every row of stage `s`, in the order given. */
export function stageRows<S extends Stage>(rows: Iterable<StageRow>, s: S): StageRowOf<S>[] {
  const out: StageRowOf<S>[] = [];
  for (const row of rows) if (isStageRow(row, s)) out.push(row);
  return out;
}

/** The reply of a verdict of `role` (a verdict of another role is a bug of the caller). */
export function replyOf<R extends Role>(v: VerdictRow, role: R): ReplyOf<R> {
  if (isRoleVerdict(v, role)) return v.reply;
  throw new Error(`verdict ${v.callKey} is a ${v.role}'s, not a ${role}'s`);
}

/** The reviewers' verdicts among `verdicts`. */
export function reviewerVerdicts(verdicts: Iterable<VerdictRow>): VerdictRowOf<'reviewer'>[] {
  const out: VerdictRowOf<'reviewer'>[] = [];
  for (const v of verdicts) if (isRoleVerdict(v, 'reviewer')) out.push(v);
  return out;
}

/** What the store commits for one stage, in one transaction (invariant 5): a union keyed by stage. */
export type StageCompletion = {
  [S in Stage]: {
    round: number;
    stage: S;
    result: StageResults[S];
    /** Findings first recorded by this stage (review). */
    findings?: Omit<FindingRow, 'refutation' | 'dispute' | 'settlement'>[] | undefined;
    /** Refuter decisions (refute). */
    refutations?: { findingId: string; refutation: Refutation }[] | undefined;
    /** Fixer disputes (fix). */
    disputes?: { findingId: string; reason: string }[] | undefined;
    /**
     * Settlements this run's findings inherit from earlier runs of the change (decide):
     * written only where the finding has none yet, so a person's own decision stands.
     */
    settlements?: { findingId: string; settlement: Settlement }[] | undefined;
    /** Run fields that move with this stage (a fix commit moves the head). */
    run?:
      | { head?: string | undefined; costUsd?: number | undefined; roundsDone?: number | undefined }
      | undefined;
  };
}[Stage];

/** The coverage the last review that recorded one recorded (the record's predicate carries the same). */
export function finalCoverage(rows: Iterable<StageRow>): Record<string, Coverage> | undefined {
  return stageRows(rows, 'review')
    .sort((a, b) => b.round - a.round)
    .find((row) => row.result.coverage !== undefined)?.result.coverage;
}
