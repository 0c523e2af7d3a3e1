/**
 * A real, unmodified reviewer nobody here wrote: ESLint with its recommended
 * rules (examples/eval/eslint-reviewer.mjs wraps it as a `command` reviewer),
 * over the whole shipped corpus. Its scores are printed; what is pinned is
 * that every case ran and that the scores are the ones its findings give.
 */
import { join } from 'node:path';
import { expect, it } from 'vitest';
import type { RanCase } from '../../src/eval/case-result.js';
import { evaluate } from '../../src/eval/evaluate.js';
import { renderText } from '../../src/eval/report.js';
import { OVERALL } from '../../src/eval/scores.js';
import { CORPUS, ROOT } from './support.js';

it('ESLint (recommended rules) over the shipped corpus: every case ran, scores printed', async () => {
  const res = await evaluate({
    corpus: CORPUS,
    config: join(ROOT, 'examples/eval/eslint.config.yaml'),
    mode: 'review',
    window: 3,
    env: process.env,
  });
  console.log(renderText(res.primary));
  expect(res.primary.totals).toMatchObject({ cases: 37, ran: 37, notRun: 0 });
  const ran = res.primary.cases.filter((c): c is RanCase => c.ran);
  const findings = ran.flatMap((c) => c.findings);
  expect(findings.every((f) => f.reviewer === 'eslint' && f.claim.length > 0)).toBe(true);
  const t = res.primary.reviewers.find((r) => r.reviewer === OVERALL)?.tally;
  expect(t?.findings).toBe(findings.length);
  expect(t?.matchedFindings).toBe(ran.flatMap((c) => c.matches).filter((m) => m !== null).length);
  expect(t?.defects).toBe(ran.reduce((s, c) => s + c.defects.length, 0));
}, 1_200_000);
