/**
 * docs/reviewers.md, "Finding paths", says how a finding's path is read. Each
 * claim there is run here through a real review (real repository, real
 * subprocess reviewer, real SQLite ledger), and the paragraph is read back so
 * that the page and this test change together. (`./`, unquoted prompts and
 * submodules also have their own tests in test/loop/finding-lines.test.ts.)
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  baseConfig,
  ensureBuilt,
  findings,
  inProcess,
  makeReviewRepo,
  ROOT,
  raceFinding,
  reposRemovedAfterAll,
  review,
} from '../loop/helpers.js';

const repos = reposRemovedAfterAll();
beforeAll(() => ensureBuilt(), 120_000);

const page = readFileSync(join(ROOT, 'docs/reviewers.md'), 'utf8');
const section = page.slice(page.indexOf('### Finding paths'), page.indexOf('## Agent CLIs against'));

async function reviewCiting(file: string) {
  const r = await makeReviewRepo({ config: (a) => baseConfig(a) });
  repos.push(r);
  r.plan({ reviewer: [{ reply: findings(raceFinding({ file })) }] });
  const p = await inProcess(r.dir);
  try {
    return (await review(p, r.dir)).report;
  } finally {
    await p.close();
  }
}

describe('docs/reviewers.md: finding paths', () => {
  it('the page has the section this test checks', () => {
    expect(section.length).toBeGreaterThan(200);
  });

  it.each(['./src/calc.js', 'src//calc.js'])('%s is src/calc.js, as documented', async (file) => {
    expect(section).toContain(`\`${file}\``);
    const report = await reviewCiting(file);
    expect(report.run, report.run.detail ?? '').toMatchObject({ status: 'completed', outcome: 'findings' });
    expect(report.findings.map((f) => f.reported.file)).toEqual(['src/calc.js']);
  });

  it('src\\calc.js is malformed, and the detail says paths are separated by /', async () => {
    expect(section).toContain('`src\\calc.js` names');
    expect(section).toMatch(/never read as\s+`src\/calc\.js`/);
    const report = await reviewCiting('src\\calc.js');
    expect(report.run).toMatchObject({ status: 'failed', outcome: null, reason: 'malformed' });
    expect(report.run.detail).toMatch(/src\\calc\.js is not a file at .*paths are separated by '\/'/);
    expect(report.findings).toEqual([]);
  });

  it.each(['/etc/passwd', '../calc.js', 'C:\\src\\calc.js'])(
    '%s is outside the repository: malformed',
    async (file) => {
      expect(section).toMatch(/absolute path, a drive letter or a `\.\.` segment/);
      const report = await reviewCiting(file);
      expect(report.run).toMatchObject({ status: 'failed', reason: 'malformed' });
      expect(report.findings).toEqual([]);
    },
  );
});
