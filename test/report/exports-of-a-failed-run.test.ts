/**
 * Invariant 18 end to end: a real run (real git, real subprocess reviewers,
 * the real CLI and its SQLite ledger) whose second reviewer crashes, then
 * every CI export of it read by its consumer's rules. No format may read as
 * a pass: JUnit (validated by xmllint against junit-10.xsd), SARIF (GitHub's
 * rules and SARIF's Appendix I), markdown and GitHub annotations.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseConfig, ensureBuilt, makeReviewRepo, pass, type ReviewRepo, runCli } from '../loop/helpers.js';
import { checkGithubSarif, incompleteBecause } from './github-sarif-rules.js';

const XSD = new URL('../fixtures/junit/junit-10.xsd', import.meta.url).pathname;
const hasXmllint = spawnSync('xmllint', ['--version']).status === 0;
let r: ReviewRepo;
let runId = '';
const tmp = mkdtempSync(join(tmpdir(), 'revloop-exports-'));

beforeAll(async () => {
  ensureBuilt();
  r = await makeReviewRepo({
    config: (a) =>
      baseConfig(a, {
        reviewers: [
          { name: 'first', ...a },
          { name: 'second', ...a },
        ],
      }),
  });
  r.plan({ 'reviewer:first': [{ reply: pass }], 'reviewer:second': [{ exit: 1 }] });
  const res = await runCli(['review', '--head', r.branch, '--json'], { cwd: r.dir });
  expect(res.code, res.stderr).toBe(3);
  expect(res.json).toMatchObject({ status: 'failed', reason: 'reviewer_failed' });
  runId = String(res.json?.runId);
}, 120_000);

afterAll(async () => {
  await r?.cleanup();
  rmSync(tmp, { recursive: true, force: true });
});

const exported = async (format: string): Promise<string> => {
  const res = await runCli(['export', runId, '--format', format], { cwd: r.dir });
  expect(res.code, res.stderr).toBe(0);
  return res.stdout;
};

describe('the exports of a run whose second reviewer crashed', () => {
  it.skipIf(!hasXmllint)(
    'JUnit: valid against junit-10.xsd, the crashed reviewer an error, never a pass',
    async () => {
      const xml = await exported('junit');
      const file = join(tmp, 'junit.xml');
      writeFileSync(file, xml);
      const v = spawnSync('xmllint', ['--noout', '--schema', XSD, file], { encoding: 'utf8' });
      expect(v.stderr).toMatch(/validates$/m);
      expect(xml).toContain('name="first: no blocker"');
      expect(xml).not.toContain('second: no blocker');
      expect(xml).toMatch(/name="second: no verdict">\s*<error type="failed"/);
    },
  );

  it('SARIF: follows GitHub’s rules and says the result set is incomplete', async () => {
    const log = JSON.parse(await exported('sarif'));
    expect(checkGithubSarif(log)).toEqual([]);
    expect(incompleteBecause(log)).toEqual([
      'executionSuccessful: false',
      expect.stringMatching(/^error notification: run \S+ failed: reviewer_failed/),
      expect.stringMatching(/^error notification: no verdict from second in round 1 \(failed: /),
    ]);
  });

  it('markdown: the round is not "0 blocking" and the missing result is listed', async () => {
    const md = await exported('markdown');
    expect(md).toMatch(/\| 1 \| `[0-9a-f]{7}` \| 0, no verdict from second \| 0 \|/);
    expect(md).toContain('### Missing results (1)');
    expect(md).not.toContain('None.');
  });

  it('GitHub annotations: an error for the run and one for the missing verdict', async () => {
    const lines = (await exported('github')).trimEnd().split('\n');
    expect(lines[0]).toMatch(/^::error title=revloop run did not complete::run \S+ failed: reviewer_failed/);
    expect(lines[1]).toMatch(/^::error title=revloop no verdict::no verdict from second in round 1/);
  });
});
