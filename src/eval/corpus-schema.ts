/**
 * The corpus format: cases of known-bug (or clean) changes, each a base and a
 * head in a repository (a path, or a git bundle shipped beside the corpus).
 * Parsed at the boundary; plain data after it. `corpusJsonSchema()` is the
 * shipped schema/revloop.corpus.schema.json.
 */
import { z } from 'zod';

const sha = z.string().regex(/^[0-9a-f]{7,64}$/, 'a commit id (hex)');
const SEVERITY = z.enum(['MAJOR', 'MODERATE', 'MINOR']);

export const defectSchema = z
  .object({
    file: z
      .string()
      .min(1)
      .optional()
      .describe('Path at the head, relative to the repository root (absent: a prose defect of the change).'),
    line: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe(
        'First line of the defect at the head (1-based). Absent: a prose defect, matched by the judge.',
      ),
    endLine: z.number().int().min(1).optional().describe('Last line (default: line).'),
    description: z.string().min(1).describe('One line: what is wrong.'),
    severity: SEVERITY.default('MAJOR'),
  })
  .strict()
  .refine((d) => d.line === undefined || d.file !== undefined, {
    message: 'a line needs a file',
    path: ['line'],
  })
  .refine((d) => d.endLine === undefined || d.line !== undefined, {
    message: 'endLine needs line',
    path: ['endLine'],
  })
  .refine((d) => d.endLine === undefined || d.line === undefined || d.endLine >= d.line, {
    message: 'endLine is before line',
    path: ['endLine'],
  });

const caseBase = {
  id: z
    .string()
    .regex(/^[\w.-]+$/, 'letters, digits, ".", "_" or "-"')
    .describe('Unique within the corpus.'),
  repo: z.string().min(1).optional().describe('A repository directory (relative to the corpus file).'),
  bundle: z.string().min(1).optional().describe('A git bundle (relative to the corpus file).'),
  base: sha.describe('The commit the change applies to.'),
  head: sha.describe('The commit under review.'),
  upstream: z
    .string()
    .optional()
    .describe('Where the case comes from (a commit of the original repository).'),
};

export const knownBugCaseSchema = z
  .object({ ...caseBase, defects: z.array(defectSchema).min(1), clean: z.literal(false).optional() })
  .strict();
export const cleanCaseSchema = z
  .object({ ...caseBase, clean: z.literal(true), description: z.string().optional() })
  .strict();

export const caseSchema = z
  .union([knownBugCaseSchema, cleanCaseSchema])
  .refine((c) => (c.repo === undefined) !== (c.bundle === undefined), {
    message: 'give exactly one of "repo" and "bundle"',
  });

export const corpusSchema = z
  .object({
    version: z.literal(1),
    description: z.string().optional(),
    /**
     * How findings meet defects: `position` (same file, overlapping lines; a
     * defect without a line goes to the judge) or `judge` (the eval config's
     * judge decides every pair).
     */
    match: z.enum(['position', 'judge']).default('position'),
    /** Provenance of shipped bundles: where each came from and under which license. */
    sources: z
      .array(
        z
          .object({
            bundle: z.string(),
            url: z.string(),
            license: z.string().describe('SPDX id'),
            licenseFile: z.string().optional().describe('The license text, relative to the corpus file.'),
          })
          .strict(),
      )
      .default([]),
    cases: z.array(caseSchema).min(1),
  })
  .strict();

export type Defect = z.infer<typeof defectSchema>;
export type EvalCase = z.infer<typeof caseSchema>;
export type Corpus = z.infer<typeof corpusSchema>;

export const isClean = (c: EvalCase): c is Extract<EvalCase, { clean: true }> => c.clean === true;
export const defectsOf = (c: EvalCase): Defect[] => (isClean(c) ? [] : c.defects);

/** A defect located by lines, which position matching can use. */
export type LocatedDefect = Defect & { file: string; line: number };
export const isLocated = (d: Defect): d is LocatedDefect => d.file !== undefined && d.line !== undefined;

export function corpusJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(corpusSchema, { io: 'input' }) as Record<string, unknown>;
}
