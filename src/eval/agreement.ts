/**
 * Agreement of a new reviewer configuration with recorded verdicts, one
 * prompt at a time: the blockers (MAJOR or MODERATE as reported, before
 * gating) both replies raise at matching places are kept, those only the
 * recorded reply raised are lost, those only the new one raised are new.
 * Pure; `eval replay` gathers the replies.
 */
import { type Matcher, matchFindings, type Span } from './match.js';

export interface Agreement {
  kept: number;
  lost: number;
  new: number;
}

interface ReplyFinding extends Span {
  severity?: unknown;
}

export function blockersOf(reply: unknown): Span[] {
  const findings = (reply as { findings?: unknown })?.findings;
  if (!Array.isArray(findings)) return [];
  return (findings as ReplyFinding[])
    .filter((f) => f && (f.severity === 'MAJOR' || f.severity === 'MODERATE') && typeof f.file === 'string')
    .map((f) => ({
      file: f.file,
      line: Number(f.line),
      endLine: f.endLine === undefined ? undefined : Number(f.endLine),
    }));
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
