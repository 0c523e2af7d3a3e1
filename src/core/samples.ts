/**
 * Repeat sampling (`review.samples`): a reviewer asked n times on the same
 * prompt, its findings matched across the samples, and a blocker that too
 * few samples reproduce demoted. One model call is a noisy measurement; a
 * defect that is really there tends to be found again, a false alarm tends
 * not to be. Pure: the live review stage and replay call the same functions
 * over the same recorded replies.
 */
import { gateScenario } from './gating.js';
import type { IgnoreMatcher } from './ignore.js';
import {
  isBlockingSeverity,
  type Policy,
  type ReportedFinding,
  type Reproduction,
  type ReviewerReply,
  type ReviewSettings,
  type SampleRule,
} from './types.js';

export type { Reproduction, SampleRule };

/** Samples per call at most: each one is a paid call. */
export const MAX_SAMPLES = 9;

/** When the samples after the first are drawn. */
export const SAMPLE_WHEN = ['always', 'blockers'] as const;

/** The default `block` of n samples: a majority. */
export const majorityOf = (n: number): number => Math.floor(n / 2) + 1;

/** The rule a reviewer runs under: its own `samples`, else `review.samples`; one sample is no rule. */
export function sampleRuleOf(
  own: SampleRule | undefined,
  review: SampleRule | undefined,
): SampleRule | undefined {
  const rule = own ?? review;
  return rule && rule.n > 1 ? rule : undefined;
}

/** Samples drawn before any reply is read: all of them, or only the first on `blockers`. */
export const firstSamples = (rule: SampleRule | undefined): number =>
  rule === undefined ? 1 : rule.on === 'always' ? rule.n : 1;

/**
 * Whether the first sample's reply calls for the others (`on: blockers`): it
 * raised a blocker on a kept path that the scenario gate keeps (invariant 9).
 * A reply whose blockers are all demoted anyway has nothing to reproduce.
 */
export function raisedBlocker(
  reply: ReviewerReply,
  isIgnored: IgnoreMatcher,
  criteria: string,
  policy: Pick<Policy, 'requireScenario'>,
): boolean {
  return reply.findings.some(
    (f) =>
      isBlockingSeverity(f.severity) &&
      isIgnored(f.file) === null &&
      gateScenario(f, criteria, policy.requireScenario).kind === 'kept',
  );
}

/**
 * How many samples a prompt's calls draw in all, once the first sample's
 * reply is in: the rule's n on `always`; on `blockers`, n only when the
 * first raised a blocker, else that one.
 */
export function samplesWanted(
  rule: SampleRule | undefined,
  first: ReviewerReply,
  isIgnored: IgnoreMatcher,
  criteria: string,
  policy: Pick<Policy, 'requireScenario'>,
): number {
  if (rule === undefined) return 1;
  if (rule.on === 'always') return rule.n;
  return raisedBlocker(first, isIgnored, criteria, policy) ? rule.n : 1;
}

/**
 * The sampling a sample's call is sent: the first keeps the run's own (its
 * request is what it was before sampling); each other one a seed shifted by
 * its index, which only endpoints that take a seed send (the OpenAI
 * protocol; the Messages API has none).
 */
export function samplingOf(
  review: ReviewSettings | undefined,
  sample: number | undefined,
): { temperature: number | null; seed?: number | undefined } | undefined {
  if (!sample) return review;
  return { temperature: review?.temperature ?? null, seed: (review?.seed ?? 0) + sample };
}

/** A finding of one sample, by its index in that sample's reply. */
export interface SampledFinding {
  sample: number;
  index: number;
  reported: ReportedFinding;
}

/** One finding per matched group: the earliest sample's, with how many samples found it. */
export interface MatchedFinding extends SampledFinding {
  reproduction: Reproduction;
}

const overlaps = (a: ReportedFinding, b: ReportedFinding): boolean =>
  a.file === b.file && a.line <= (b.endLine ?? b.line) && b.line <= (a.endLine ?? a.line);

/**
 * Matches the findings of `of` samples of one reviewer on one prompt: the
 * same fingerprint (same file and claim) first, else the same file and
 * overlapping lines, one member per sample in each group. Each group is
 * represented by its earliest finding (sample, then index), so the refuter
 * and the fixer see it once. Deterministic in the order given.
 */
export function matchSamples(
  findings: readonly SampledFinding[],
  of: number,
  printOf: (f: ReportedFinding) => string,
): MatchedFinding[] {
  interface Group {
    first: SampledFinding;
    print: string;
    samples: Set<number>;
  }
  const groups: Group[] = [];
  const bySample = new Map<number, SampledFinding[]>();
  for (const f of findings) bySample.set(f.sample, [...(bySample.get(f.sample) ?? []), f]);
  for (const sample of [...bySample.keys()].sort((a, b) => a - b)) {
    const mine = (bySample.get(sample) ?? []).map((f) => ({ f, print: printOf(f.reported) }));
    const placed = new Set<SampledFinding>();
    const join = (accepts: (g: Group, f: SampledFinding, print: string) => boolean) => {
      for (const { f, print } of mine) {
        if (placed.has(f)) continue;
        const g = groups.find((x) => !x.samples.has(sample) && accepts(x, f, print));
        if (!g) continue;
        g.samples.add(sample);
        placed.add(f);
      }
    };
    // A same-claim match is surer than a same-lines one: it is tried for every finding first.
    join((g, _f, print) => g.print === print);
    join((g, f) => overlaps(g.first.reported, f.reported));
    for (const { f, print } of mine)
      if (!placed.has(f)) groups.push({ first: f, print, samples: new Set([sample]) });
  }
  return groups
    .map((g) => ({ ...g.first, reproduction: { seen: g.samples.size, of } }))
    .sort((a, b) => a.sample - b.sample || a.index - b.index);
}

/**
 * Whether a blocker seen in too few samples is demoted: a MODERATE is, a
 * MAJOR never (it stays a blocker and goes to the refuter: a real defect
 * one sample found must not vanish).
 */
export const unreproduced = (f: ReportedFinding, r: Reproduction | undefined, block: number): boolean =>
  r !== undefined && r.seen < block && isBlockingSeverity(f.severity) && f.severity !== 'MAJOR';

/** The words every output uses for a count. */
export const reproductionText = (r: Reproduction): string => `seen in ${r.seen} of ${r.of} samples`;
