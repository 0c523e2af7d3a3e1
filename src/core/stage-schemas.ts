/**
 * The schemas of core/stage-results.ts's types, applied to rows read back
 * from the ledger (core/stored-rows.ts). Apart from the types so that readers
 * of typed rows (verify, reports) do not load zod.
 */
import { z } from 'zod';
import type { Coverage } from './coverage.js';
import type { RoundDecision } from './decide.js';
import type { CheckResult, ProgressEvidence, ProgressFacts } from './progress.js';
import type { MemoryFact } from './refute-memory.js';
import { fixerReplySchema, judgeReplySchema, refuterReplySchema, reviewerReplySchema } from './replies.js';
import type {
  ChecksResult,
  DecideResult,
  DroppedFinding,
  FixResult,
  RecordedFix,
  RefuteResult,
  ReplyOf,
  ReviewResult,
  StageResults,
} from './stage-results.js';
import { Outcome, type Role, type Stage, StopReason } from './types.js';

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
          sample: z.number().int().min(0).optional(),
        })
        .loose(),
    ),
    scope: z.record(str, z.object({ passedAt: str.nullable(), touchedSincePass: z.boolean() }).loose()),
    coverage: z.record(str, coverageSchema).optional(),
    dropped: z.array(droppedSchema).optional(),
    editedByFix: z.array(str).optional(),
    onePerFingerprint: z.literal(true).optional(),
    protectedEdited: z.array(str),
    reviewsComplete: z.literal(true),
  })
  .loose();

const severity = z.enum(['MAJOR', 'MODERATE', 'MINOR']);
const originSchema = z.object({ runId: str, round: z.number(), findingId: str, callKey: str }).loose();
const memoryFactSchema: z.ZodType<MemoryFact> = z
  .object({
    forFinding: str,
    judged: z
      .object({
        findingId: str,
        runId: str,
        runCreatedAt: z.number(),
        round: z.number(),
        changeKey: str,
        reviewer: str,
        file: str,
        line: z.number(),
        endLine: z.number(),
        revision: str,
        fingerprint: str,
        severity,
        reportedSeverity: severity,
        content: str.nullable(),
        refuter: str.nullable(),
        refutation: z
          .object({
            decision: z.enum(['upheld', 'refuted']),
            by: str,
            reason: str,
            callKey: str,
            origin: originSchema.optional(),
          })
          .loose(),
      })
      .loose(),
    now: z
      .object({ file: str, range: z.object({ start: z.number(), end: z.number() }).loose() })
      .loose()
      .nullable(),
  })
  .loose();

const refuteResultSchema: z.ZodType<RefuteResult> = z
  .object({
    refuter: str.nullable(),
    decisions: z.array(
      z.object({ findingId: str, callKey: str, decision: z.enum(['upheld', 'refuted']) }).loose(),
    ),
    overCap: z.array(str).optional(),
    memory: z.array(memoryFactSchema).optional(),
    remembered: z.array(z.object({ findingId: str, origin: originSchema }).loose()).optional(),
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
  .object({
    head: str,
    results: z.array(checkResultSchema),
    base: z
      .object({ commit: str, results: z.array(checkResultSchema) })
      .loose()
      .optional(),
  })
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
