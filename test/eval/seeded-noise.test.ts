/**
 * docs/eval.md's table of what sampling does to a reviewer whose noise is
 * seeded (examples/eval/noisy-reviewer.mjs): the eval it documents is run
 * here, its figures are the table's, and each figure's interval holds the
 * value the binomial model expects from p and q.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Interval } from '../../src/eval/bootstrap.js';
import { evaluate } from '../../src/eval/evaluate.js';
import type { Scorecard } from '../../src/eval/scorecard.js';
import { CORPUS, ROOT } from './support.js';

const P = 0.7;
const Q = 0.3;
const doc = readFileSync(join(ROOT, 'docs/eval.md'), 'utf8');
const pct = (v: number | null | undefined) => `${((v ?? Number.NaN) * 100).toFixed(1)} %`;
const within = (v: number, i: Interval | null) => i !== null && i.low <= v && v <= i.high;
const overall = (s: Scorecard) => s.reviewers.at(-1);

let single: Scorecard;
let sampled: Scorecard;
let difference: NonNullable<Awaited<ReturnType<typeof evaluate>>['against']>['diff'];

beforeAll(async () => {
  const res = await evaluate({
    corpus: CORPUS,
    config: join(ROOT, 'examples/eval/noisy.config.yaml'),
    against: join(ROOT, 'examples/eval/noisy-sampled-always.config.yaml'),
    mode: 'review',
    window: 3,
    env: { ...process.env, REVLOOP_CONFINE: 'off' },
    jobs: 2,
  });
  single = res.primary;
  if (!res.against) throw new Error('no --against side');
  sampled = res.against.other;
  difference = res.against.diff;
}, 900_000);

describe('seeded noise (docs/eval.md)', () => {
  it('every case ran on both sides, one call per case against three', () => {
    expect(single.complete && sampled.complete).toBe(true);
    expect(single.spend.calls.mean).toBe(1);
    expect(sampled.spend.calls.mean).toBe(3);
    expect(difference.spend.calls.ratio).toBe(3);
  });

  it("the table's figures are this eval's", () => {
    for (const [label, s] of [
      ['| one sample |', single],
      ['| n 3, block 2, `on: always` |', sampled],
    ] as const) {
      const row = doc.split('\n').find((l) => l.startsWith(label)) ?? '';
      const o = overall(s);
      expect(row).toContain(pct(o?.metrics.recall));
      expect(row).toContain(pct(o?.metrics.falsePositiveRate));
    }
  });

  it('each interval holds what the binomial model expects', () => {
    const one = overall(single);
    const three = overall(sampled);
    expect(within(P, one?.intervals.recall ?? null)).toBe(true);
    expect(within(Q, one?.intervals.falsePositiveRate ?? null)).toBe(true);
    expect(within(1 - (1 - P) ** 3, three?.intervals.recall ?? null)).toBe(true);
    expect(within(3 * Q ** 2 - 2 * Q ** 3, three?.intervals.falsePositiveRate ?? null)).toBe(true);
    // And the false-positive rate falls, significantly, on paired cases.
    expect(difference.overall.falsePositiveRate.significant).toBe(true);
    expect(difference.overall.falsePositiveRate.delta).toBeLessThan(0);
  });

  it('reuse declared changes nothing within one review of each case: the same findings and calls', async () => {
    const res = await evaluate({
      corpus: CORPUS,
      config: join(ROOT, 'examples/eval/noisy.config.yaml'),
      against: join(ROOT, 'examples/eval/noisy-reuse.config.yaml'),
      mode: 'review',
      window: 3,
      env: { ...process.env, REVLOOP_CONFINE: 'off' },
      jobs: 2,
    });
    const other = res.against?.other;
    expect(other?.complete).toBe(true);
    expect(other?.reviewers.at(-1)?.tally).toEqual(res.primary.reviewers.at(-1)?.tally);
    expect(other?.totals.calls).toBe(res.primary.totals.calls);
  }, 900_000);
});
