/**
 * The store boundary for stage results and verdict replies: every store reads
 * them through these functions, so a row that fails its schema stops here
 * with a named error (run, stage or role, field) instead of travelling on as
 * `unknown` to be cast at its use. After this, they are plain typed data.
 */
import type { z } from 'zod';
import { RevloopError } from './errors.js';
import type { ReplyOf, StageResults, StageRow, VerdictRow } from './stage-results.js';
import { REPLY_SCHEMAS, STAGE_RESULT_SCHEMAS } from './stage-schemas.js';
import { type Role, Stage } from './types.js';

/** A stored stage result or reply that fails its schema: the ledger holds what this revloop cannot read. */
export class StoredRowError extends RevloopError {
  constructor(
    readonly runId: string,
    /** The stage of a result, or `<stage> verdict <callKey>` of a reply. */
    readonly what: string,
    readonly field: string,
    readonly problem: string,
  ) {
    super(
      'stored_row_invalid',
      `run ${runId}: the stored ${what} fails its schema at ${field}: ${problem}; the ledger holds a row this revloop cannot read`,
      { runId, what, field, problem },
    );
  }
}

/** A stage row as the database hands it back, its result not yet parsed. */
export interface RawStageRow {
  runId: string;
  round: number;
  stage: string;
  snapshotKey: string;
  result: unknown;
  completedAt: number;
}

/** A verdict row as the database hands it back, its reply not yet parsed. */
export interface RawVerdictRow extends Omit<VerdictRow, 'role' | 'reply' | 'stage'> {
  role: string;
  stage: string;
  reply: unknown;
}

const fieldOf = (issue: z.core.$ZodIssue | undefined, root: string): string =>
  [root, ...(issue?.path ?? []).map(String)].join('.');

function parsed<T>(schema: z.ZodType<T>, value: unknown, fail: (field: string, problem: string) => never): T {
  const res = schema.safeParse(value);
  if (res.success) return res.data;
  const issue = res.error.issues[0];
  return fail(fieldOf(issue, '$'), issue?.message ?? 'invalid');
}

const isStage = (s: string): s is Stage => Object.hasOwn(Stage, s);

export function parseStageRow(raw: RawStageRow): StageRow {
  const { runId } = raw;
  if (!isStage(raw.stage))
    throw new StoredRowError(runId, `round ${raw.round} stage`, 'stage', `unknown stage "${raw.stage}"`);
  const result = <S extends Stage>(s: S): StageResults[S] =>
    parsed(STAGE_RESULT_SCHEMAS[s], raw.result, (field, problem) => {
      throw new StoredRowError(runId, `${s} result of round ${raw.round}`, field, problem);
    });
  const base = { runId, round: raw.round, snapshotKey: raw.snapshotKey, completedAt: raw.completedAt };
  // One case per stage: the switch is exhaustive over Stage, so a new stage needs its line here.
  switch (raw.stage) {
    case 'review':
      return { ...base, stage: 'review', result: result('review') };
    case 'refute':
      return { ...base, stage: 'refute', result: result('refute') };
    case 'fix':
      return { ...base, stage: 'fix', result: result('fix') };
    case 'checks':
      return { ...base, stage: 'checks', result: result('checks') };
    case 'decide':
      return { ...base, stage: 'decide', result: result('decide') };
  }
}

export function parseVerdictRow(raw: RawVerdictRow): VerdictRow {
  const { runId, callKey } = raw;
  const what = `${raw.stage} verdict ${callKey}`;
  if (!isStage(raw.stage)) throw new StoredRowError(runId, what, 'stage', `unknown stage "${raw.stage}"`);
  const reply = <R extends Role>(r: R): ReplyOf<R> =>
    parsed(REPLY_SCHEMAS[r], raw.reply, (field, problem) => {
      throw new StoredRowError(runId, `${r} reply of the ${what}`, field, problem);
    });
  const base = { ...raw, stage: raw.stage };
  switch (raw.role) {
    case 'reviewer':
      return { ...base, role: 'reviewer', reply: reply('reviewer') };
    case 'refuter':
      return { ...base, role: 'refuter', reply: reply('refuter') };
    case 'fixer':
      return { ...base, role: 'fixer', reply: reply('fixer') };
    default:
      throw new StoredRowError(runId, what, 'role', `unknown role "${raw.role}"`);
  }
}

/** An eval judge's stored reply (a JudgementRow's), parsed like a verdict's. */
export function parseJudgementReply(runId: string, callKey: string, reply: unknown): ReplyOf<'judge'> {
  return parsed(REPLY_SCHEMAS.judge, reply, (field, problem) => {
    throw new StoredRowError(runId, `judge reply ${callKey}`, field, problem);
  });
}
