/**
 * The last step every adapter shares: agent text or a reply value in, a
 * CallResult out. Parsing, the model-drift check and cost reading live here
 * once, so no adapter can accept a reply another would reject.
 */
import { extractJson, parseReply } from '../core/replies.js';
import { type TokenPrices, usageCost } from '../core/token-cost.js';
import type { Role } from '../core/types.js';
import type { CallResult } from '../ports/reviewer.js';
import type { ErrorClass } from './classify.js';

export type CallFailure = Extract<CallResult, { ok: false }>;

/** A classified failure; `label` prefixes the detail (e.g. `reviewer "x"`). */
export function fail(
  cls: ErrorClass,
  label: string,
  detail: string,
  retryAfterMs?: number | null,
): CallFailure {
  const out: CallFailure = { ok: false, class: cls, detail: `${label}: ${detail}` };
  if (retryAfterMs != null) out.retryAfterMs = retryAfterMs;
  return out;
}

/** The failure with the cost its reply was reported at: rejected is not free (invariant 12). */
export function costing(failure: CallFailure, costUsd: number | undefined): CallFailure {
  return costUsd !== undefined && Number.isFinite(costUsd) && costUsd > 0 ? { ...failure, costUsd } : failure;
}

/** The `usage.costUsd` a reply value reports, read whatever else in it is wrong. */
function reportedCost(value: unknown): number | undefined {
  const usage = value && typeof value === 'object' ? (value as { usage?: unknown }).usage : undefined;
  const cost = usage && typeof usage === 'object' ? (usage as { costUsd?: unknown }).costUsd : undefined;
  return typeof cost === 'number' && cost >= 0 ? cost : undefined;
}

/**
 * The one model-drift rule: a pinned model and a reported id that differs
 * (exact string comparison) is drift. A call that reports no model is not
 * drift; its model id is recorded as null.
 */
export function modelDrift(
  label: string,
  pinned: string | undefined,
  reported: string | null,
): CallFailure | null {
  if (pinned === undefined || reported === null || reported === pinned) return null;
  return fail('model_drift', label, `pinned model "${pinned}" but the reply reports "${reported}"`);
}

export interface FinishOptions {
  role: Role;
  /** Prefix of every detail, e.g. `reviewer "correctness"`. */
  label: string;
  pinnedModel: string | undefined;
  /**
   * The model the endpoint served (API adapters, agent envelopes). When
   * undefined the reply's own `model` field is the reported id.
   */
  servedModel?: string | null | undefined;
  /** Cost measured outside the reply (tokens × prices, agent envelope); else the reply's `usage.costUsd`. */
  costUsd?: number | undefined;
  /** The endpoint held the reply to the role's strict schema: its nulls are absent fields. */
  structured?: boolean | undefined;
  /** Recorded on the attempt: how the reply was asked for, the tokens it used; added to a failure's detail. */
  note?: string | undefined;
}

/** Parses agent text (the whole text or one fenced ```json block) as the role's reply. */
export function finishText(text: string, opts: FinishOptions): CallResult {
  const json = extractJson(text);
  if (!json.ok) {
    // Drift is the more useful reason when both hold: the wrong model answered.
    const drift =
      opts.servedModel != null ? modelDrift(opts.label, opts.pinnedModel, opts.servedModel) : null;
    return costing(drift ?? fail('malformed', opts.label, withNote(json.detail, opts.note)), opts.costUsd);
  }
  return finishValue(opts.structured ? withoutNulls(json.value) : json.value, opts);
}

const withNote = (detail: string, note: string | undefined): string =>
  note ? `${detail} (${note})` : detail;

/** Validates a reply value for the role, then applies the drift check and reads the cost. */
export function finishValue(value: unknown, opts: FinishOptions): CallResult {
  const replyModel =
    value && typeof value === 'object' && typeof (value as { model?: unknown }).model === 'string'
      ? ((value as { model: string }).model as string)
      : null;
  const reported = opts.servedModel !== undefined ? opts.servedModel : replyModel;
  const paid = opts.costUsd ?? reportedCost(value);
  const drift = modelDrift(opts.label, opts.pinnedModel, reported);
  if (drift) return costing(drift, paid);
  const parsed = parseReply(opts.role, value);
  if (!parsed.ok) return costing(fail('malformed', opts.label, withNote(parsed.detail, opts.note)), paid);
  const cost = opts.costUsd ?? parsed.reply.usage?.costUsd ?? 0;
  const ok: CallResult = { ok: true, reply: parsed.reply, modelId: reported, costUsd: cost };
  return opts.note ? { ...ok, note: opts.note } : ok;
}

/** USD for token counts at per-million-token prices, no cache involved; 0 when no prices are configured. */
export function tokenCost(
  prices: TokenPrices | undefined,
  inputTokens: number,
  outputTokens: number,
): number {
  return usageCost(prices, { inputTokens, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens });
}

/** A structured reply with its nulls read as absent fields, at any depth. */
export function withoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== null)
      .map(([k, v]) => [k, withoutNulls(v)]),
  );
}
