/**
 * The columns of the ledger's two widest appends and a row's values in
 * that order, once for both SQL stores: their SQL differs in placeholders
 * and casts (`?` against `$n::jsonb`) and in how `recorded_at` is stamped,
 * never in which column takes which value.
 */
import type { JudgementRow } from '../../core/ledger.js';
import type { NewVerdict } from '../../core/stage-results.js';
import { toJson } from './rules.js';

/** Thirteen columns; `reply` (the tenth) and `reused_from` (the thirteenth) are JSON text. */
export const VERDICT_COLUMNS =
  'call_key, run_id, round, stage, role, reviewer, revision, prompt_digest, model_id, reply, cost_usd, reuse_key, reused_from';

export const verdictValues = (v: NewVerdict): unknown[] => [
  v.callKey,
  v.runId,
  v.round,
  v.stage,
  v.role,
  v.reviewer,
  v.revision,
  v.promptDigest,
  v.modelId,
  toJson(v.reply),
  v.costUsd,
  v.reuseKey ?? null,
  v.reusedFrom ? toJson(v.reusedFrom) : null,
];

/** Ten columns; `reply` (the ninth) is JSON text. */
export const JUDGEMENT_COLUMNS =
  'call_key, run_id, case_id, judge, finding, defect, prompt_digest, model_id, reply, cost_usd';

export const judgementValues = (j: Omit<JudgementRow, 'recordedAt'>): unknown[] => [
  j.callKey,
  j.runId,
  j.caseId,
  j.judge,
  j.finding,
  j.defect,
  j.promptDigest,
  j.modelId,
  toJson(j.reply),
  j.costUsd,
];
