/**
 * The round-log format `analyze` reads (DESIGN.md, "Simulator and analyzer").
 * Extra fields are accepted: the ledger's export adds ids, heads and more.
 */
import { z } from 'zod';
import { RoundLogError } from './errors.js';

export const SEVERITIES = ['MAJOR', 'MODERATE', 'MINOR'] as const;

/**
 * A finding: the seed's three fields, and what the ledger's export adds so
 * history is kept (`overturned` alone means "shown wrong", not "never blocked").
 */
export const RoundLogFindingSchema = z.object({
  reviewer: z.string().min(1),
  severity: z.enum(SEVERITIES),
  overturned: z.boolean(),
  /** Refuted before it cost a rework round: it did not block its round. */
  refuted: z.boolean().optional(),
  /** A procedural demotion (scenario gate, scope lock, too few samples): not blocking, and not an overturn. */
  demotedBy: z.enum(['no_scenario', 'scope_lock', 'unreproduced']).nullable().optional(),
  /** Under repeat sampling: how many of the reviewer's samples found it. */
  reproduction: z.object({ seen: z.number().int().min(1), of: z.number().int().min(1) }).optional(),
  /** Whether it blocked when its round was decided; when present it is the round's truth. */
  blockedInRound: z.boolean().optional(),
  /** Older exports say why a finding did not block ("demoted", "refuted", ...) instead. */
  because: z.string().nullable().optional(),
});

/** The evidence a live round was decided on (the export's `rounds[].evidence`). */
export const RoundLogEvidenceSchema = z.object({ progress: z.boolean() });

export const RoundLogSchema = z.object({
  rounds: z.array(
    z.object({
      findings: z.array(RoundLogFindingSchema),
      evidence: RoundLogEvidenceSchema.nullable().optional(),
      decision: z.string().nullable().optional(),
    }),
  ),
  stopReason: z.string().nullable().optional(),
  stopWindow: z.number().int().min(1).nullable().optional(),
  /** How the run ended, when the log comes from `export --format rounds`. */
  status: z.string().nullable().optional(),
  outcome: z.string().nullable().optional(),
});

/** A round log after validation: only the fields analysis uses. */
export type ParsedRoundLog = z.infer<typeof RoundLogSchema>;

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** `["rounds", 2, "severity"]` -> `$.rounds[2].severity`. */
export function jsonPath(path: readonly PropertyKey[]): string {
  let out = '$';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else if (typeof seg === 'string' && IDENT.test(seg)) out += `.${seg}`;
    else out += `[${JSON.stringify(String(seg))}]`;
  }
  return out;
}

function valueAt(doc: unknown, path: readonly PropertyKey[]): unknown {
  let v: unknown = doc;
  for (const seg of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<PropertyKey, unknown>)[seg];
  }
  return v;
}

function describe(v: unknown): string {
  if (v === undefined) return 'nothing (the field is missing)';
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'object') return 'an object';
  return `${typeof v} ${JSON.stringify(v)}`;
}

/**
 * Validates a parsed JSON document against `schema`.
 * @throws RoundLogError naming the JSON path of the first bad field.
 */
export function parseWith<T>(schema: z.ZodType<T>, doc: unknown): T {
  const res = schema.safeParse(doc);
  if (res.success) return res.data;
  const issue = res.error.issues[0]!;
  const path = issue.path;
  let problem: string;
  if (issue.code === 'invalid_value') {
    problem = `expected one of ${issue.values.map(String).join(', ')}`;
  } else if (issue.code === 'invalid_type') {
    problem = `expected ${issue.expected}, got ${describe(valueAt(doc, path))}`;
  } else if (issue.code === 'too_small') {
    problem =
      typeof valueAt(doc, path) === 'number'
        ? `expected at least ${issue.minimum}`
        : 'expected a non-empty string';
  } else {
    problem = issue.message;
  }
  throw new RoundLogError(jsonPath(path), problem);
}

/**
 * Validates a parsed JSON document as a round log.
 * @throws RoundLogError naming the JSON path of the first bad field.
 */
export function parseRoundLog(doc: unknown): ParsedRoundLog {
  return parseWith(RoundLogSchema, doc);
}

/** JSON text as a value; a UTF-8 byte-order mark (editors on Windows write one) is not part of the JSON. */
export function parseJsonText(text: string): unknown {
  try {
    return JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (err) {
    throw new RoundLogError('$', `not valid JSON (${(err as Error).message})`);
  }
}

/**
 * Parses round-log text (a file or stdin).
 * @throws RoundLogError at `$` when the text is not JSON, or at the first bad field.
 */
export function parseRoundLogText(text: string): ParsedRoundLog {
  return parseRoundLog(parseJsonText(text));
}
