/**
 * The shipped corpus through the real loop with real subprocess reviewers:
 * one that knows every defect scores recall 1, one with a fixed finding on
 * every file scores exactly the precision the defects' positions give it,
 * and each of its findings on a clean case is a false positive.
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { RanCase } from '../../src/eval/case-result.js';
import { loadCorpus } from '../../src/eval/corpus-load.js';
import { corpusJsonSchema, defectsOf, isClean } from '../../src/eval/corpus-schema.js';
import { type Evaluation, evaluate } from '../../src/eval/evaluate.js';
import type { Matcher } from '../../src/eval/match.js';
import { OVERALL } from '../../src/eval/scores.js';
import { CORPUS, ROOT, reviewerConfig } from './support.js';

const WINDOW = 3;
const env = { ...process.env, EVAL_CORPUS: join(CORPUS, 'corpus.json') };
const overall = (e: Evaluation['primary']) => e.reviewers.find((r) => r.reviewer === OVERALL);

describe('the shipped corpus', () => {
  it('is real history: ≥ 20 reverted fixes, ≥ 10 clean changes, each bundle small with its license recorded', () => {
    const { corpus } = loadCorpus(CORPUS);
    const fixes = corpus.cases.filter((c) => !isClean(c));
    expect(fixes.length).toBeGreaterThanOrEqual(20);
    expect(corpus.cases.length - fixes.length).toBeGreaterThanOrEqual(10);
    let bytes = 0;
    for (const c of corpus.cases) {
      expect(c.upstream).toMatch(/^[0-9a-f]{40}$/);
      const src = corpus.sources.find((s) => s.bundle === c.bundle);
      expect(src?.license).toBe('MIT');
      expect(readFileSync(join(CORPUS, src?.licenseFile ?? 'missing'), 'utf8')).toMatch(/MIT License/);
    }
    for (const s of corpus.sources) bytes += statSync(join(CORPUS, s.bundle)).size;
    expect(bytes).toBeLessThan(1024 * 1024);
  });

  it('its JSON Schema on disk is the one the loader uses', () => {
    const shipped = JSON.parse(readFileSync(join(ROOT, 'schema/revloop.corpus.schema.json'), 'utf8'));
    const { $id: _id, title: _title, ...rest } = shipped;
    expect(rest).toEqual(corpusJsonSchema());
  });
});

describe('eval over the shipped corpus with real subprocess reviewers', () => {
  let res: Evaluation;
  beforeAll(async () => {
    res = await evaluate({
      corpus: CORPUS,
      config: reviewerConfig('oracle', 'oracle.mjs'),
      against: reviewerConfig('every-file', 'every-file.mjs'),
      mode: 'review',
      window: WINDOW,
      env,
    });
  }, 900_000);

  it('every case ran, on both sides', () => {
    expect(res.primary.totals).toMatchObject({ cases: 37, ran: 37, notRun: 0 });
    expect(res.against?.other.complete).toBe(true);
  });

  it('a reviewer that finds every shipped defect scores recall 1 (and precision 1, no false positive)', () => {
    expect(overall(res.primary)?.metrics).toEqual({ recall: 1, precision: 1, f1: 1, falsePositiveRate: 0 });
  });

  it('a fixed finding on every file scores the precision the defect positions give it, and each clean case is a false positive', () => {
    const other = res.against?.other;
    if (!other) throw new Error('no second side');
    const ran = other.cases.filter((c): c is RanCase => c.ran);
    // Worked out here from the corpus alone: a line-1 finding hits a defect of its file starting within the window.
    let hits = 0;
    let findings = 0;
    for (const c of ran) {
      findings += c.findings.length;
      for (const f of c.findings)
        if (c.defects.some((d) => d.file === f.file && (d.line ?? 0) <= 1 + WINDOW)) hits++;
      expect(c.findings.every((f) => f.line === 1)).toBe(true);
    }
    const defects = ran.reduce((s, c) => s + defectsOf(c as never).length, 0);
    const m = overall(other);
    expect(m?.tally.findings).toBe(findings);
    expect(m?.metrics.precision).toBeCloseTo(hits / findings, 12);
    expect(m?.metrics.recall).toBeCloseTo(hits / defects, 12);
    expect(m?.metrics.falsePositiveRate).toBe(1);
    expect(m?.tally.falsePositiveCases).toBe(12);
    // and the comparison sees the drop in precision as significant
    expect(res.against?.diff.overall.precision.significant).toBe(true);
    expect(res.against?.diff.overall.precision.delta).toBeLessThan(0);
  });

  it('a deliberately broken matcher fails the recall-1 check', async () => {
    const offByOne: Matcher = (f, d, w) =>
      f.flatMap((x, i) =>
        d[i] && d[i]?.file === x.file && d[i]?.line === x.line + w + 1 ? [{ finding: i, defect: i }] : [],
      );
    const broken = await evaluate({
      corpus: CORPUS,
      config: reviewerConfig('oracle', 'oracle.mjs'),
      mode: 'review',
      window: WINDOW,
      env,
      matcher: offByOne,
    });
    expect(overall(broken.primary)?.metrics.recall).not.toBe(1);
  }, 900_000);
});
