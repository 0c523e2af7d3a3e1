/**
 * What `sim --fit` reads: round logs as `revloop export --format rounds`
 * writes them (one run per document, or an array of runs), validated at the
 * boundary. The fit needs the export's fields, not only the seed's three.
 */
import { z } from 'zod';
import { RoundLogError } from '../analyze/errors.js';
import { parseJsonText, parseWith } from '../analyze/schema.js';
import type { FitLog } from './fit.js';

const FitFindingSchema = z.object({
  reviewer: z.string().min(1),
  severity: z.enum(['MAJOR', 'MODERATE', 'MINOR']),
  refuted: z.boolean(),
  // Demotions other than these two (a newer export's) are read as neither, not refused.
  demotedBy: z.string().nullable(),
  blockedInRound: z.boolean(),
  file: z.string(),
  line: z.number().int(),
  // Repeat sampling's count: how many of the reviewer's samples raised the finding, of how many.
  reproduction: z
    .object({ seen: z.number().int().min(0), of: z.number().int().min(1) })
    .refine((r) => r.seen <= r.of, { message: 'expected seen at most of' })
    .optional(),
});
const FitLogSchema = z.object({ rounds: z.array(z.object({ findings: z.array(FitFindingSchema) })) });

/**
 * Parses one file's text into runs.
 * @throws RoundLogError whose path starts with the file's name (a UsageError: exit 2).
 */
export function parseFitText(name: string, text: string): FitLog[] {
  try {
    const doc = parseJsonText(text);
    // Each run is validated on its own, so a bad field is named by its own path (a union would hide it).
    return Array.isArray(doc)
      ? doc.map((d, i) => prefixed(`[${i}]`, () => parseWith(FitLogSchema, d)))
      : [parseWith(FitLogSchema, doc)];
  } catch (err) {
    if (err instanceof RoundLogError) throw new RoundLogError(`${name}: ${err.path}`, err.problem);
    throw err;
  }
}

function prefixed<T>(index: string, f: () => T): T {
  try {
    return f();
  } catch (err) {
    if (err instanceof RoundLogError)
      throw new RoundLogError(err.path.replace(/^\$/, `$${index}`), err.problem);
    throw err;
  }
}
