/** Repeat sampling's rules as tables: the config, the keys, matching across samples, when more are drawn. */
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/core/config.js';
import { callKey } from '../../src/core/keys.js';
import { findingsToGate } from '../../src/core/review-gating.js';
import {
  matchSamples,
  reproductionText,
  sampleRuleOf,
  samplesWanted,
  samplingOf,
} from '../../src/core/samples.js';
import type { ReportedFinding } from '../../src/core/types.js';
import { sha256 } from '../../src/io/hash.js';

const reviewer = { name: 'r', command: ['node', 'r.mjs'] };
const config = (review: unknown, own?: unknown) =>
  parseConfig({ reviewers: [{ ...reviewer, ...(own ? { samples: own } : {}) }], review });

describe('review.samples in the config', () => {
  it.each([
    [{ samples: { n: 3, block: 4 } }, 'review.samples.block', 'must be at most n (3)'],
    [{ samples: { n: 10 } }, 'review.samples.n', null],
    [{ samples: { n: 0 } }, 'review.samples.n', null],
    [{ samples: { n: 3, block: 0 } }, 'review.samples.block', null],
    [{ samples: { n: 3, on: 'sometimes' } }, 'review.samples.on', null],
    [{ samples: { n: 3, every: 2 } }, 'review.samples.every', 'unknown key'],
  ])('%j is refused naming %s', (review, path, message) => {
    const got = parseConfig({ reviewers: [reviewer], review });
    expect(got.ok).toBe(false);
    if (got.ok) return;
    expect(got.path).toBe(path);
    if (message) expect(got.message).toBe(message);
  });

  it("names a reviewer's own key", () => {
    const got = config(undefined, { n: 2, block: 3 });
    expect(got).toEqual({ ok: false, path: 'reviewers.0.samples.block', message: 'must be at most n (2)' });
  });

  it('is off by default; block defaults to a majority, on to always', () => {
    const off = config(undefined);
    expect(off.ok && off.config.review.samples).toBeUndefined();
    const on = config({ samples: { n: 5 } });
    expect(on.ok && on.config.review.samples).toEqual({ n: 5, block: 3, on: 'always' });
  });

  it("a reviewer's own samples override review.samples; one sample is no rule", () => {
    const all = { n: 3, block: 2, on: 'always' as const };
    expect(sampleRuleOf(undefined, all)).toEqual(all);
    expect(sampleRuleOf({ n: 5, block: 4, on: 'blockers' }, all)).toEqual({ n: 5, block: 4, on: 'blockers' });
    expect(sampleRuleOf({ n: 1, block: 1, on: 'always' }, all)).toBeUndefined();
    expect(sampleRuleOf(undefined, undefined)).toBeUndefined();
  });
});

describe('call keys and sampling of samples', () => {
  const parts = {
    snapshotKey: 's',
    runId: 'run',
    round: 1,
    stage: 'review' as const,
    role: 'reviewer' as const,
    name: 'r',
    promptDigest: 'd',
  };
  it('sample 0 keeps the key a call had before sampling; each other sample has its own', () => {
    const plain = callKey(parts, sha256);
    expect(callKey({ ...parts, sample: 0 }, sha256)).toBe(plain);
    expect(callKey({ ...parts, sample: undefined }, sha256)).toBe(plain);
    const keys = [1, 2, 3].map((sample) => callKey({ ...parts, sample }, sha256));
    expect(new Set([plain, ...keys]).size).toBe(4);
  });

  it("sample 0 is sent the run's sampling; the others a seed shifted by their index", () => {
    const review = { contextBytes: 1, temperature: 0.7, concurrency: null, chunkBytes: 1, seed: 40 };
    expect(samplingOf(review, undefined)).toBe(review);
    expect(samplingOf(review, 0)).toBe(review);
    expect(samplingOf(review, 2)).toEqual({ temperature: 0.7, seed: 42 });
    expect(samplingOf(undefined, 1)).toEqual({ temperature: null, seed: 1 });
  });
});

const f = (line: number, claim: string, over: Partial<ReportedFinding> = {}): ReportedFinding => ({
  severity: 'MODERATE',
  file: 'a.ts',
  line,
  claim,
  failureScenario: 'when the cart is empty, total() returns NaN and the order is charged 0',
  ...over,
});
const print = (x: ReportedFinding) => `${x.file}\n${x.claim}`;

describe('matching findings across samples', () => {
  it('by the same claim, else by overlapping lines in the same file; one member per sample', () => {
    const got = matchSamples(
      [
        { sample: 0, index: 0, reported: f(10, 'stale total', { endLine: 12 }) },
        { sample: 0, index: 1, reported: f(40, 'leak') },
        { sample: 1, index: 0, reported: f(11, 'the total read is stale') },
        { sample: 1, index: 1, reported: f(90, 'leak') },
        { sample: 1, index: 2, reported: f(12, 'another claim on the same lines') },
        { sample: 2, index: 0, reported: f(10, 'x', { file: 'b.ts' }) },
      ],
      3,
      print,
    );
    expect(got.map((g) => [g.sample, g.index, g.reproduction.seen])).toEqual([
      [0, 0, 2],
      [0, 1, 2],
      [1, 2, 1],
      [2, 0, 1],
    ]);
    expect(got.every((g) => g.reproduction.of === 3)).toBe(true);
  });

  it('prefers a same-claim match over a same-lines one', () => {
    const got = matchSamples(
      [
        { sample: 0, index: 0, reported: f(10, 'alpha') },
        { sample: 0, index: 1, reported: f(10, 'beta') },
        { sample: 1, index: 0, reported: f(10, 'beta') },
      ],
      2,
      print,
    );
    expect(got.map((g) => [g.index, g.reproduction.seen])).toEqual([
      [0, 1],
      [1, 2],
    ]);
    expect(reproductionText(got[1]!.reproduction)).toBe('seen in 2 of 2 samples');
  });
});

describe('when the samples after the first are drawn', () => {
  const ignored = (p: string) => (p.startsWith('vendor/') ? 'vendor/**' : null);
  const reply = (...findings: ReportedFinding[]) => ({ verdict: 'findings' as const, findings });
  const policy = { requireScenario: true };
  const blockers = { n: 3, block: 2, on: 'blockers' as const };
  it.each([
    ['no rule', undefined, reply(f(1, 'x')), 1],
    ['always', { ...blockers, on: 'always' as const }, { verdict: 'pass' as const, findings: [] }, 3],
    ['blockers, a pass', blockers, { verdict: 'pass' as const, findings: [] }, 1],
    ['blockers, a MINOR', blockers, reply(f(1, 'x', { severity: 'MINOR' })), 1],
    ['blockers, a vague MODERATE', blockers, reply(f(1, 'x', { failureScenario: 'could cause issues' })), 1],
    ['blockers, a MODERATE on an ignored path', blockers, reply(f(1, 'x', { file: 'vendor/x.js' })), 1],
    ['blockers, a MODERATE', blockers, reply(f(1, 'x')), 3],
  ])('%s: %i', (_name, rule, first, wanted) => {
    expect(samplesWanted(rule, first, ignored, '', policy)).toBe(wanted);
  });
});

describe('samples of a chunked review', () => {
  const call = (chunk: number, sample: number, ...findings: ReportedFinding[]) => ({
    reviewer: 'r',
    callKey: `c${chunk}s${sample}`,
    reply: { verdict: 'findings' as const, findings },
    chunk,
    sample,
  });
  it('matches samples within a chunk, then keeps one per fingerprint across chunks', () => {
    const { toGate } = findingsToGate(
      [
        call(0, 0, f(10, 'stale total')),
        call(0, 1, f(10, 'stale total')),
        call(1, 0, f(10, 'stale total'), f(50, 'leak', { file: 'b.ts' })),
        call(1, 1),
      ],
      () => null,
      (k, i) => `${k}#${i}`,
      sha256,
    );
    expect(toGate.map((g) => [g.id, g.reproduction])).toEqual([
      ['c0s0#0', { seen: 2, of: 2 }],
      ['c1s0#1', { seen: 1, of: 2 }],
    ]);
  });
});
