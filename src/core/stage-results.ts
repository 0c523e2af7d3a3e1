/**
 * What each stage records as its result, and what each role's verdict holds,
 * as types and as the schemas that parse them back out of the ledger
 * (core/stored-rows.ts). A mapped type keyed by stage (Temporal's pattern):
 * a new stage does not compile until it has a result type and a schema, and a
 * reader asks `stage(rows, round, 'fix')` and gets a FixResult, never
 * `unknown` to cast.
 */
import { z } from 'zod';
import type { Coverage } from './coverage.js';
import type { OpenBlocker, RoundDecision } from './decide.js';
import type { FindingRow, Refutation } from './ledger.js';
import type { CheckResult, ProgressEvidence, ProgressFacts } from './progress.js';
import { fixerReplySchema, judgeReplySchema, refuterReplySchema, reviewerReplySchema } from './replies.js';
import type { ScopeFacts } from './scope-lock.js';
import {
  type FixerReply,
  type JudgeReply,
  Outcome,
  type RefuterReply,
  type ReviewerReply,
  type Role,
  type Stage,
  StopReason,
} from './types.js';

/** Issue 17: a finding on an ignored path, dropped with the rule that matched. */
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
  }[];
  /** Scope facts per finding id, recorded so replay re-gates without git. */
  scope: Record<string, ScopeFacts>;
  /** Issue 17: per reviewer, the files it was shown and those left out (absent before issue 17). */
  coverage?: Record<string, Coverage>;
  /** Issue 17: findings on ignored paths, dropped with the rule that matched. */
  dropped?: DroppedFinding[];
  protectedEdited: string[];
  reviewsComplete: true;
}

export interface RefuteResult {
  refuter: string | null;
  decisions: { findingId: string; callKey: string; decision: 'upheld' | 'refuted' }[];
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
    /** Run fields that move with this stage (a fix commit moves the head). */
    run?:
      | { head?: string | undefined; costUsd?: number | undefined; roundsDone?: number | undefined }
      | undefined;
  };
}[Stage];

// Schemas. Objects are `loose`: a field a newer revloop added survives a read, so
// what an export prints and what replay compares is what was recorded.

const str = z.string();
const coverageSchema: z.ZodType<Coverage> = z
  .object({
    files: z.array(z.object({ path: str, ignored: str.optional() }).loose()),
    reviewed: z.array(str),
    ignored: z.array(z.object({ path: str, rule: str }).loose()),
  })
  .loose();

const droppedSchema: z.ZodType<DroppedFinding> = z
  .object({ reviewer: str, callKey: str, index: z.number(), file: str, rule: str })
  .loose();

const reviewResultSchema: z.ZodType<ReviewResult> = z
  .object({
    head: str,
    verdicts: z.array(
      z
        .object({
          reviewer: str,
          callKey: str,
          verdict: z.enum(['pass', 'findings']),
          modelId: str.nullable(),
          chunk: z
            .object({ index: z.number(), files: z.array(str) })
            .loose()
            .optional(),
        })
        .loose(),
    ),
    scope: z.record(str, z.object({ passedAt: str.nullable(), touchedSincePass: z.boolean() }).loose()),
    coverage: z.record(str, coverageSchema).optional(),
    dropped: z.array(droppedSchema).optional(),
    protectedEdited: z.array(str),
    reviewsComplete: z.literal(true),
  })
  .loose();

const refuteResultSchema: z.ZodType<RefuteResult> = z
  .object({
    refuter: str.nullable(),
    decisions: z.array(
      z.object({ findingId: str, callKey: str, decision: z.enum(['upheld', 'refuted']) }).loose(),
    ),
  })
  .loose();

const disputeSchema = z.object({ findingId: str, reason: str }).loose();

const fixResultSchema: z.ZodType<FixResult> = z
  .object({
    from: str,
    commit: str.nullable(),
    diffDigest: str,
    disputes: z.array(disputeSchema),
    unknownIds: z.array(str),
    notLanded: str.optional(),
    userTreeChanged: z.array(str).optional(),
  })
  .loose();

const checkResultSchema: z.ZodType<CheckResult> = z
  .object({
    name: str,
    exitCode: z.number().nullable(),
    passed: z.boolean(),
    tail: str,
    durationMs: z.number(),
  })
  .loose();

const checksResultSchema: z.ZodType<ChecksResult> = z
  .object({ head: str, results: z.array(checkResultSchema) })
  .loose();

const progressFactsSchema: z.ZodType<ProgressFacts> = z
  .object({
    checksBefore: z.array(checkResultSchema).nullable(),
    checksAfter: z.array(checkResultSchema).nullable(),
    priorBlockers: z.array(
      z
        .object({
          id: str,
          reviewer: str,
          file: str,
          touchedByFix: z.boolean(),
          newRange: z.object({ start: z.number(), end: z.number() }).loose().nullable(),
          citedChecks: z.array(str),
          disputed: z.boolean(),
        })
        .loose(),
    ),
    raised: z.array(z.object({ reviewer: str, file: str, line: z.number(), endLine: z.number() }).loose()),
    settledSince: z.array(str),
    diffLinesBefore: z.number(),
    diffLinesAfter: z.number(),
    shrinkRatio: z.number(),
  })
  .loose();

const evidenceSchema: z.ZodType<ProgressEvidence> = z
  .object({
    progress: z.boolean(),
    checksNowPassing: z.array(str),
    fixed: z.array(str),
    settled: z.array(str),
    shrank: z.boolean(),
  })
  .loose();

const decisionSchema: z.ZodType<RoundDecision> = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('stop'), outcome: z.enum(Outcome), stopReason: z.enum(StopReason) }).loose(),
  z.object({ kind: z.literal('fix'), blockers: z.array(str) }).loose(),
]);

const decideResultSchema: z.ZodType<DecideResult> = z
  .object({
    reviewsComplete: z.boolean(),
    openBlockers: z.array(
      z
        .object({
          id: str,
          disputed: z.boolean(),
          needsSettlement: z.boolean(),
          upheld: z.literal(true).optional(),
        })
        .loose(),
    ),
    blocking: z.number(),
    settlements: z.record(str, z.enum(['upheld', 'overturned'])),
    progressFacts: progressFactsSchema.nullable(),
    evidence: evidenceSchema.nullable(),
    progress: z.array(z.boolean()),
    spentUsd: z.number(),
    decision: decisionSchema,
  })
  .loose();

/** One schema per stage: the mapped type forces one for every stage. */
export const STAGE_RESULT_SCHEMAS: { [S in Stage]: z.ZodType<StageResults[S]> } = {
  review: reviewResultSchema,
  refute: refuteResultSchema,
  fix: fixResultSchema,
  checks: checksResultSchema,
  decide: decideResultSchema,
};

const recordedFixSchema: z.ZodType<RecordedFix> = fixerReplySchema
  .extend({
    commit: str.nullable(),
    diffDigest: str,
    notLanded: str.optional(),
    userTreeChanged: z.array(str).optional(),
  })
  .loose();

/** One schema per role, for verdicts read back from the ledger (the same ones a reply was parsed by). */
export const REPLY_SCHEMAS: { [R in Role]: z.ZodType<ReplyOf<R>> } = {
  reviewer: reviewerReplySchema,
  refuter: refuterReplySchema,
  fixer: recordedFixSchema,
  judge: judgeReplySchema,
};
