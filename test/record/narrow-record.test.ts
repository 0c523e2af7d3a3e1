/**
 * A record covers the change from the target branch's merge base to its
 * head (docs/security.md): `review --base HEAD~1` on a branch whose earlier
 * commit holds the real change reviews only the last commit, signs a clear
 * record of it, and `verify` (and the pre-push hook) must refuse that record
 * as narrow (exit 13). Real CLI, real git, a real subprocess reviewer, the
 * key `review` signs with.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_GIT_ENV } from '../helpers/git-repo.js';
import {
  baseConfig,
  ensureBuilt,
  HEAD_FILE,
  makeReviewRepo,
  pass,
  type ReviewRepo,
  reposRemovedAfterAll,
  runCli,
} from '../loop/helpers.js';
import { pushRunningHooks } from './setup.js';

const repos = reposRemovedAfterAll();
let r: ReviewRepo;
let record: string;
let remote: string;
beforeAll(async () => {
  ensureBuilt();
  // The change's first commit is the real one (a race); its second touches a README.
  r = await makeReviewRepo({ config: (a) => baseConfig(a), change: { 'src/calc.js': HEAD_FILE } });
  repos.push(r);
  r.repo.write('NOTES.md', 'a harmless note\n');
  r.repo.commit('docs: a note');
  r.plan({ reviewer: [{ reply: pass }] });
  const res = await runCli(['review', '--base', 'HEAD~1', '--json'], { cwd: r.dir });
  expect(res.json, res.stderr).toMatchObject({ outcome: 'clear' });
  record = (res.json as { record: string }).record;
  remote = mkdtempSync(join(tmpdir(), 'revloop-narrow-remote-'));
  execFileSync('git', ['init', '-q', '--bare', remote], { env: TEST_GIT_ENV });
  r.repo.git(['remote', 'add', 'origin', remote]);
}, 600_000);
afterAll(() => rmSync(remote, { recursive: true, force: true }));

describe('a record of the last commit only', () => {
  it('verify refuses it as narrow (exit 13), by default and against an explicit --target', async () => {
    for (const extra of [[], ['--target', 'refs/heads/main'], ['--keys-from', 'refs/heads/main']]) {
      const res = await runCli(['verify', record, ...extra], { cwd: r.dir });
      expect(res.code, res.stdout + res.stderr).toBe(13);
      expect(res.stderr.trim().split('\n')).toEqual([
        expect.stringMatching(
          /^revloop verify: refused: narrow_record: record starts at [0-9a-f]{7}, but the change merges into refs\/heads\/main from [0-9a-f]{7}: it does not cover the whole change$/,
        ),
      ]);
    }
    // Checked against the branch it was made against, it is the record of exactly that diff.
    const against = await runCli(['verify', record, '--target', 'HEAD~1'], { cwd: r.dir });
    expect(against.code, against.stderr).toBe(0);
  });

  it('the pre-push hook lets the branch through only with a record of the whole change', async () => {
    expect((await runCli(['hook', 'install'], { cwd: r.dir })).code).toBe(0);
    const push = () => pushRunningHooks(r.dir, r.branch);
    expect(readdirSync(join(r.dir, '.revloop/records'))).toHaveLength(1);
    const refused = push();
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('narrow_record');
    r.plan({ reviewer: [{ reply: pass }] });
    const whole = await runCli(['review', '--base', 'main', '--json'], { cwd: r.dir });
    expect(whole.json, whole.stderr).toMatchObject({ outcome: 'clear' });
    const ok = push();
    expect(ok.code, ok.stderr).toBe(0);
  });
});
