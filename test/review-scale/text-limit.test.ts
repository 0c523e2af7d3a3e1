/**
 * Issue 17 (no diff too large to review; cost follows the change): a diff
 * whose text is longer than one process can hold. A change that adds a large
 * data set under a path the config's ignore: rules leave out is reviewed on
 * the rest (the data's bodies are never held); without the rule, the run
 * fails missing_context saying so, never an internal error and never a
 * clear (invariant 1). Real repositories, the real Git adapter with its text
 * limit lowered (the runtime's own, 512 MB, is what a real change meets:
 * a 608 MB one was tried by hand, docs/architecture.md), real subprocess
 * reviewers, the SQLite ledger; every run replayed.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ReviewResult } from '../../src/core/stage-results.js';
import { createGit } from '../../src/git/index.js';
import {
  baseConfig,
  inProcess,
  makeReviewRepo,
  pass,
  reposRemovedAfterAll,
  review,
} from '../loop/helpers.js';

const repos = reposRemovedAfterAll();

/** The text limit of these runs: the code's change fits, the data set does not. */
const LIMIT = 20_000;
const data = (i: number) => `${i}\n${'x'.repeat(70)}\n`.repeat(100);
const change = {
  'src/calc.js': 'export const answer = 42;\n',
  ...Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`data/set${i}.txt`, data(i)])),
};

async function reviewWithLimit(ignore: string[]) {
  const r = await makeReviewRepo({ config: (a) => baseConfig(a, { ignore }), change });
  repos.push(r);
  r.plan({ reviewer: [{ reply: pass }] });
  const p = await inProcess(r.dir, { tweak: (d) => ({ ...d, git: createGit({ maxDiffTextBytes: LIMIT }) }) });
  try {
    return { r, out: await review(p, r.dir) };
  } finally {
    await p.close();
  }
}

describe('a diff with more text than one process can hold', () => {
  it('without an ignore rule for the bulk: the run fails missing_context, naming the size and ignore:, and nothing is reviewed', async () => {
    const { out } = await reviewWithLimit([]);
    expect(out.run).toMatchObject({ status: 'failed', reason: 'missing_context', outcome: null });
    expect(out.run.detail).toMatch(/has \d+ bytes of text to review/);
    expect(out.run.detail).toContain('ignore:');
    expect(out.recordPath).toBeNull();
    expect(out.report.verdicts).toEqual([]);
  }, 120_000);

  it('with the bulk ignored: reviewed clear on the rest, the data listed as ignored, its bodies in no prompt', async () => {
    const { r, out } = await reviewWithLimit(['data/**']);
    expect(out.run).toMatchObject({ status: 'completed', outcome: 'clear' });
    const rv = out.report.stages.find((s) => s.stage === 'review')?.result as ReviewResult;
    expect(rv.coverage?.correctness?.reviewed).toEqual(['src/calc.js']);
    expect(rv.coverage?.correctness?.ignored.map((i) => i.path)).toEqual(
      Array.from({ length: 8 }, (_, i) => `data/set${i}.txt`),
    );
    const digest = out.report.verdicts[0]?.promptDigest;
    const prompt = readFileSync(join(r.dir, '.revloop', 'prompts', `${digest}.txt`), 'utf8');
    expect(prompt).toContain('export const answer = 42;');
    expect(prompt).not.toContain('x'.repeat(70));
    expect(out.recordPath).not.toBeNull();
  }, 120_000);
});
