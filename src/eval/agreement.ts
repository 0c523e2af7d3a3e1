/**
 * Agreement of a new reviewer configuration with recorded verdicts, one
 * prompt at a time: the blockers (MAJOR or MODERATE as reported, before
 * gating) both replies raise at matching places are kept, those only the
 * recorded reply raised are lost, those only the new one raised are new.
 * Pure; `eval replay` gathers the replies.
 */
import { z } from 'zod';
import { type Matcher, matchFindings, type Span } from './match.js';

export interface Agreement {
  kept: number;
  lost: number;
  new: number;
}

/** A blocker as a recorded or fresh reply carries it; anything else in the reply is not read. */
const blockerSchema = z.object({
  severity: z.enum(['MAJOR', 'MODERATE']),
  file: z.string(),
  line: z.coerce.number(),
  endLine: z.coerce.number().optional(),
});
const replySchema = z.object({ findings: z.array(z.unknown()) });

/** The blockers of a reply, read through a schema (a reply that has none, or is not one, has none). */
export function blockersOf(reply: unknown): Span[] {
  const parsed = replySchema.safeParse(reply);
  if (!parsed.success) return [];
  return parsed.data.findings.flatMap((f) => {
    const b = blockerSchema.safeParse(f);
    return b.success ? [{ file: b.data.file, line: b.data.line, endLine: b.data.endLine }] : [];
  });
}

export function agreement(
  recorded: unknown,
  fresh: unknown,
  window: number,
  matcher: Matcher = matchFindings,
): Agreement {
  const a = blockersOf(recorded);
  const b = blockersOf(fresh);
  const kept = matcher(b, a, window).length;
  return { kept, lost: a.length - kept, new: b.length - kept };
}

export const addAgreement = (x: Agreement, y: Agreement): Agreement => ({
  kept: x.kept + y.kept,
  lost: x.lost + y.lost,
  new: x.new + y.new,
});
