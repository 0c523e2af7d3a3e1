/**
 * Issue 17: refuter and fixer prompts are bounded like the review's chunks.
 * Of a diff over review.chunkBytes, the refuter of a claim sees the claim's
 * file's diff, the fixer the files of its blockers; a diff that fits is sent
 * whole as before. The pure cut first, then a real loop on a real repository
 * whose change is many times the limit, reading the prompts the run stored.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { focusDiff } from '../../src/core/focused-diff.js';
import { diffSections } from '../../src/git/diff-sections.js';
import {
  baseConfig,
  FIXED_FILE,
  findings,
  HEAD_FILE,
  inProcess,
  makeReviewRepo,
  pass,
  type ReviewRepo,
  raceFinding,
  review,
  testEnv,
} from '../loop/helpers.js';

const section = (path: string, hunks: { at: number; lines: number }[]) =>
  [
    `diff --git a/${path} b/${path}\nindex 1111111..2222222 100644\n--- a/${path}\n+++ b/${path}\n`,
    ...hunks.map(
      (h) =>
        `@@ -${h.at},1 +${h.at},${h.lines} @@\n${Array.from({ length: h.lines }, (_, i) => `+line ${i}\n`).join('')}`,
    ),
  ].join('');

describe('focusDiff', () => {
  const small = section('src/a.js', [{ at: 1, lines: 3 }]);
  const other = section('src/b.js', [{ at: 1, lines: 3 }]);
  const large = section('src/large.js', [
    { at: 10, lines: 40 },
    { at: 200, lines: 40 },
    { at: 400, lines: 40 },
  ]);
  const diff = small + other + large;
  const limit = 800;
  const cut = (wanted: Parameters<typeof focusDiff>[1]) =>
    focusDiff(diffSections(diff, limit), wanted, limit);

  it('takes a named file whole when it fits, and nothing of the others', () => {
    expect(cut([{ path: 'src/b.js', lines: [[2, 2]] }])).toEqual({
      ok: true,
      text: other,
      files: ['src/b.js'],
      omitted: [],
    });
  });

  it('of a file over the limit, the hunk holding the lines, or the nearest one', () => {
    const held = cut([{ path: 'src/large.js', lines: [[210, 212]] }]);
    expect(held.ok && held.text).toContain('@@ -200,1 +200,40 @@');
    expect(held.ok && held.text).not.toContain('@@ -10,1');
    expect(held.ok && held.text.startsWith('diff --git a/src/large.js')).toBe(true);
    const near = cut([{ path: 'src/large.js', lines: [[390, 390]] }]);
    expect(near.ok && near.text).toContain('@@ -400,1 +400,40 @@');
  });

  it('names the files left out once the limit is spent', () => {
    const got = cut([
      { path: 'src/large.js', lines: [[10, 10]] },
      { path: 'src/a.js', lines: [[1, 1]] },
      { path: 'src/b.js', lines: [[1, 1]] },
    ]);
    expect(got.ok).toBe(true);
    if (!got.ok) return;
    expect(Buffer.byteLength(got.text)).toBeLessThanOrEqual(limit);
    expect(got.files[0]).toBe('src/large.js');
    expect([...got.files, ...got.omitted].sort()).toEqual(['src/a.js', 'src/b.js', 'src/large.js']);
  });

  it('refuses a file whose needed hunk alone is over the limit', () => {
    expect(
      focusDiff(diffSections(diff, 300), [{ path: 'src/large.js', lines: [[10, 10]] }], 300),
    ).toMatchObject({
      ok: false,
      path: 'src/large.js',
    });
  });
});

/**
 * A change of `src/calc.js` (the race) and twelve filler files many times
 * `limit`, reviewed with a refuter and a fixer that fixes the race; returns
 * the run's report and a reader of a role's stored prompt.
 */
async function raceRun(
  repos: ReviewRepo[],
  limit: number,
  fillerDir: string,
  extra: Record<string, unknown> = {},
) {
  const filler: Record<string, string> = {};
  for (let i = 0; i < 12; i++)
    filler[`${fillerDir}/other${i}.js`] = Array.from(
      { length: 90 },
      (_, k) => `export const FILLER_${k} = ${i};\n`,
    ).join('');
  const r = await makeReviewRepo({
    config: (a) =>
      baseConfig(a, {
        refuter: a,
        fixer: a,
        review: { chunkBytes: limit },
        budgets: { rounds: 2, wallSeconds: 600, costUsd: 5 },
        ...extra,
      }),
    change: { 'src/calc.js': HEAD_FILE, ...filler },
  });
  repos.push(r);
  r.plan({
    reviewer: [
      { round: 1, when: 'diff --git a/src/calc.js', reply: findings(raceFinding()) },
      { reply: pass },
    ],
    refuter: [{ reply: { decision: 'upheld', reason: 'the race is real' } }],
    fixer: [{ write: { 'src/calc.js': FIXED_FILE }, reply: { disputed: [] } }],
  });
  const p = await inProcess(r.dir, { env: testEnv() });
  try {
    const res = await review(p, r.dir);
    expect(res.report.run).toMatchObject({ status: 'completed', outcome: 'clear' });
    const whole = r.repo.git(['diff', `${r.base}...${r.head}`]);
    expect(Buffer.byteLength(whole)).toBeGreaterThan(5 * limit);
    const promptOf = (role: string) => {
      const v = res.report.verdicts.find((x) => x.role === role);
      if (!v) throw new Error(`no ${role} verdict`);
      return readFileSync(join(r.dir, '.revloop', 'prompts', `${v.promptDigest}.txt`), 'utf8');
    };
    return { res, promptOf };
  } finally {
    await p.close();
  }
}

describe('refuter and fixer prompts on a change many times review.chunkBytes', () => {
  const repos: ReviewRepo[] = [];
  afterAll(async () => {
    for (const r of repos) await r.cleanup();
  });

  it('carry the claim’s file and the blockers’ files, not the whole diff', async () => {
    const LIMIT = 4000;
    const { promptOf } = await raceRun(repos, LIMIT, 'src');
    for (const role of ['refuter', 'fixer']) {
      const prompt = promptOf(role);
      expect(prompt, role).toContain('diff --git a/src/calc.js b/src/calc.js');
      expect(prompt, role).not.toContain('diff --git a/src/other');
      expect(prompt, role).toContain('of "src/calc.js" only');
      // The template, the criteria and the claims besides the cut diff: bounded by the limit, not the change.
      expect(Buffer.byteLength(prompt), role).toBeLessThan(LIMIT + 4000);
    }
  }, 120_000);

  it('leave out the files the ignore rules leave out: what is kept fits, so it goes whole, without them', async () => {
    const { promptOf } = await raceRun(repos, 4000, 'gen', { ignore: ['gen/**'] });
    for (const role of ['refuter', 'fixer']) {
      const prompt = promptOf(role);
      expect(prompt, role).toContain('diff --git a/src/calc.js b/src/calc.js');
      expect(prompt, role).not.toContain('gen/other');
      expect(prompt, role).not.toContain('FILLER_');
      // Not cut: the kept diff is within the limit, so no "of ... only" heading.
      expect(prompt, role).not.toContain(' only\n');
    }
  }, 120_000);
});
