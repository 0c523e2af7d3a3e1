/**
 * An empty diff is not a clean review (issue 15, point 14): a newcomer who
 * switched to a new branch and has not committed yet runs `revloop review
 * --base main`. That is "nothing to review", exit 6, one line (naming the
 * uncommitted edits they probably meant), and no run, no record, no clear.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  baseConfig,
  type CliResult,
  ensureBuilt,
  HEAD_FILE,
  inProcess,
  makeReviewRepo,
  pass,
  type ReviewRepo,
  reposRemovedAfterAll,
  runCli,
} from '../loop/helpers.js';

const repos = reposRemovedAfterAll();
beforeAll(() => ensureBuilt(), 120_000);

async function emptyBranch() {
  const r = await makeReviewRepo({ config: (a) => baseConfig(a) });
  repos.push(r);
  r.plan({ reviewer: [{ reply: pass }] });
  r.repo.git(['checkout', '-q', '-b', 'my-feature', 'main']);
  return r;
}

async function expectNothing(r: ReviewRepo, res: CliResult, pattern: RegExp) {
  expect(res.code, res.stderr).toBe(6);
  const lines = res.stderr.trim().split('\n');
  expect(lines, res.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^revloop: nothing to review: /);
  expect(lines[0]).toMatch(pattern);
  expect(res.stdout).not.toMatch(/clear/);
  expect(existsSync(join(r.dir, '.revloop', 'records'))).toBe(false);
  expect(r.counts()).toEqual({});
  const p = await inProcess(r.dir);
  try {
    expect(await p.store.listRuns()).toEqual([]);
  } finally {
    await p.close();
  }
}

describe('review on an empty diff', () => {
  it('HEAD is the base: exit 6, "nothing to review", no run and no record', async () => {
    const r = await emptyBranch();
    const res = await runCli(['review', '--base', 'main', '--json'], { cwd: r.dir });
    await expectNothing(
      r,
      res,
      /HEAD \([0-9a-f]{12}\) has no commits that main \([0-9a-f]{12}\) does not have$/,
    );
  });

  it('with uncommitted edits, says so', async () => {
    const r = await emptyBranch();
    writeFileSync(join(r.dir, 'src/calc.js'), HEAD_FILE);
    writeFileSync(join(r.dir, 'new.js'), 'export {};\n');
    const res = await runCli(['review', '--base', 'main'], { cwd: r.dir });
    await expectNothing(r, res, /uncommitted changes in 2 files: commit them to review them$/);
  });

  it('commits that add up to nothing are nothing to review too; enqueue refuses alike', async () => {
    const r = await emptyBranch();
    r.repo.write('x.txt', 'x\n');
    r.repo.commit('add');
    r.repo.git(['rm', '-q', 'x.txt']);
    r.repo.commit('remove again');
    const res = await runCli(['review', '--base', 'main', '--json'], { cwd: r.dir });
    await expectNothing(r, res, /changes nothing against its merge base with main/);
    const queued = await runCli(['enqueue', '--base', 'main', '--head', 'my-feature'], { cwd: r.dir });
    await expectNothing(r, queued, /my-feature/);
  });
});
