/**
 * The eval report the dashboard shows: the JSON `revloop eval --format json`
 * writes, parsed at the boundary by this schema (only the fields the page
 * reads; the rest passes through). Shared by the server and the page, so it
 * imports nothing from node.
 */
import { z } from 'zod';

const num = z.number();
const metric = z.number().nullable();
const interval = z.object({ low: num, high: num }).nullable();
const METRICS = ['recall', 'precision', 'f1', 'falsePositiveRate'] as const;
export type EvalMetric = (typeof METRICS)[number];

const reviewerScore = z.looseObject({
  reviewer: z.string(),
  tally: z.looseObject({
    defects: num,
    matchedDefects: num,
    findings: num,
    matchedFindings: num,
    clean: num,
    falsePositiveCases: num,
    refuted: num,
  }),
  metrics: z.looseObject({ recall: metric, precision: metric, f1: metric, falsePositiveRate: metric }),
  intervals: z.looseObject({
    recall: interval,
    precision: interval,
    f1: interval,
    falsePositiveRate: interval,
  }),
});

const caseResult = z.looseObject({
  id: z.string(),
  clean: z.boolean(),
  defects: z.array(z.unknown()),
  ran: z.boolean(),
  field: z.string().optional(),
  error: z.string().optional(),
  outcome: z.string().nullable().optional(),
  findings: z
    .array(
      z.looseObject({
        reviewer: z.string(),
        file: z.string(),
        line: num,
        claim: z.string(),
        blocking: z.boolean(),
      }),
    )
    .optional(),
  matches: z.array(num.nullable()).optional(),
  judged: z.object({ pairs: num, called: num }).optional(),
});

const scorecard = z.looseObject({
  label: z.string(),
  mode: z.string(),
  window: num,
  applied: z.string(),
  totals: z.looseObject({ cases: num, ran: num, notRun: num, rounds: num, costUsd: num, seconds: num }),
  complete: z.boolean(),
  reviewers: z.array(reviewerScore),
  cases: z.array(caseResult),
});

const difference = z.looseObject({ delta: metric, interval, p: metric, significant: z.boolean() });

export const evalReportSchema = z.looseObject({
  corpus: z.string(),
  primary: scorecard,
  against: z
    .looseObject({
      other: scorecard,
      diff: z.looseObject({
        pairedCases: num,
        overall: z.looseObject({
          recall: difference,
          precision: difference,
          f1: difference,
          falsePositiveRate: difference,
        }),
      }),
    })
    .nullable(),
});

export type EvalReportView = z.infer<typeof evalReportSchema>;
export type EvalScorecardView = z.infer<typeof scorecard>;

/** One report in the list the page offers. */
export interface EvalListItem {
  id: string;
  file: string;
  label: string;
  corpus: string;
  complete: boolean;
  ran: number;
  cases: number;
  against: string | null;
}
