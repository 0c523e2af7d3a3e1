/**
 * Structured output for the API adapters: each role's
 * reply as a JSON Schema an endpoint can hold the model to (OpenAI
 * `response_format` json_schema, strict; Anthropic a forced tool call), and
 * how to tell an endpoint that does not offer it from a fault.
 *
 * Strict mode wants every property required, so the optional fields of a
 * reply are nullable here and a null is read as "absent" (reply-result.ts withoutNulls);
 * the reply is then validated by the same schema as any other (core/replies.ts).
 */
import type { Role } from '../core/types.js';
import type { CallResult } from '../ports/reviewer.js';
import { fail } from './reply-result.js';

const str = { type: 'string' } as const;
const optional = (t: 'string' | 'integer') => ({ type: [t, 'null'] });
const object = (properties: Record<string, unknown>) => ({
  type: 'object',
  additionalProperties: false,
  required: Object.keys(properties),
  properties,
});

const finding = object({
  severity: { type: 'string', enum: ['MAJOR', 'MODERATE', 'MINOR'] },
  file: str,
  line: { type: 'integer' },
  endLine: optional('integer'),
  claim: str,
  failureScenario: optional('string'),
  violatedClause: optional('string'),
  missedBecause: optional('string'),
});

const SCHEMAS: Record<Role, Record<string, unknown>> = {
  reviewer: object({
    verdict: { type: 'string', enum: ['pass', 'findings'] },
    findings: { type: 'array', items: finding },
  }),
  refuter: object({ decision: { type: 'string', enum: ['upheld', 'refuted'] }, reason: str }),
  fixer: object({ disputed: { type: 'array', items: object({ finding: str, reason: str }) } }),
  judge: object({ matches: { type: 'boolean' }, reason: str }),
};

/** The reply schema of a role, and the name the endpoint knows it by (a-z, 0-9, `_`). */
export function replySchema(role: Role): { name: string; schema: Record<string, unknown> } {
  return { name: `revloop_${role}_reply`, schema: SCHEMAS[role] };
}

const FEATURE = /response_format|json_schema|structured output|tool_choice|\btools?\b|function[_ ]call/i;
const NOT_OFFERED =
  /not (?:be )?supported|unsupported|does not support|doesn't support|not available|unknown (?:field|parameter|argument)|unrecognized|not (?:allowed|permitted)|extra (?:inputs|fields)|invalid/i;

/**
 * Whether an SDK error is the endpoint saying it does not offer structured
 * output (a 400, 422 or 501 that names response_format, json_schema, tools or
 * tool_choice as unsupported): a capability answer, asked again as plain
 * JSON text, never a fault to retry. Read by shape, like classify.ts.
 */
export function refusesStructuredOutput(err: unknown): string | null {
  const e = (err ?? {}) as { status?: unknown; message?: unknown; error?: unknown };
  if (e.status !== 400 && e.status !== 422 && e.status !== 501) return null;
  const text = `${typeof e.message === 'string' ? e.message : ''} ${JSON.stringify(e.error ?? '')}`;
  return FEATURE.test(text) && NOT_OFFERED.test(text)
    ? `HTTP ${e.status}: ${(typeof e.message === 'string' ? e.message : text).slice(0, 200)}`
    : null;
}

/** The endpoint's answer that it does not offer structured output (a capability, not a fault). */
export interface Refused {
  refusedStructured: string;
}

/**
 * One request asking for structured output and, only when the endpoint
 * answers that it does not offer it, one more with the same prompt as plain
 * JSON text; `fallback` is then the attempt's note saying so.
 */
export async function structuredOrPlain<T extends object>(
  label: string,
  send: (structured: boolean) => Promise<T | CallResult | Refused>,
): Promise<{ got: T | CallResult; fallback: string | undefined }> {
  const first = await send(true);
  if (!('refusedStructured' in first)) return { got: first, fallback: undefined };
  const fallback = `structured output refused by the endpoint (${first.refusedStructured}); asked for plain JSON text`;
  const second = await send(false);
  // Asked as plain text there is nothing of structured output left to refuse.
  if ('refusedStructured' in second)
    return { got: fail('failed', label, second.refusedStructured), fallback };
  return { got: second, fallback };
}
