/**
 * The GitLab component's job script (templates/revloop.yml) run as GitLab's
 * runner runs it: its lines joined into one script under `bash --noprofile
 * --norc -e -o pipefail`, with the job's variables and a clone of this
 * repository at a tag (here a local one, `file://`), installing the SQLite
 * driver from npm's cache offline. With findings it fails by verify's code
 * after a review that exited 1; a record of another commit is refused and
 * fails the job; verify's JSON is printed either way.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { TEST_GIT_ENV } from '../helpers/git-repo.js';
import {
  baseConfig,
  ensureBuilt,
  findings,
  makeReviewRepo,
  pass,
  type ReviewRepo,
  ROOT,
  raceFinding,
  reposRemovedAfterAll,
  runCli,
} from '../loop/helpers.js';

const repos = reposRemovedAfterAll();
const temp = mkdtempSync(join(tmpdir(), 'revloop-gitlab-job-'));
const source = join(temp, 'revloop-src');
const npmCache = execFileSync('npm', ['config', 'get', 'cache'], { encoding: 'utf8' }).trim();
const git = (cwd: string, args: string[]) =>
  execFileSync('git', args, { cwd, env: TEST_GIT_ENV, encoding: 'utf8' });

beforeAll(() => {
  ensureBuilt();
  // This repository's commit under test, tagged, as the job clones it.
  execFileSync('git', ['init', '-q', source], { env: TEST_GIT_ENV });
  git(source, ['fetch', '-q', '--depth=1', ROOT, 'HEAD']);
  git(source, ['tag', 'vtest', 'FETCH_HEAD']);
}, 120_000);
afterAll(() => rmSync(temp, { recursive: true, force: true }));

const jobDoc = parseAllDocuments(readFileSync(join(ROOT, 'templates/revloop.yml'), 'utf8'))[1]?.toJS() as {
  revloop: { script: string[] };
};

/** The job's script in `r`'s checkout: GitLab's bash with -e and pipefail, its variables set. */
function runJob(r: ReviewRepo, vars: Record<string, string>) {
  const revloopDir = mkdtempSync(join(temp, 'clone-'));
  rmSync(revloopDir, { recursive: true });
  // The template clones to /tmp/revloop; each test its own, so tests may run side by side.
  const script = jobDoc.revloop.script.join('\n').replaceAll('/tmp/revloop', revloopDir);
  const res = spawnSync('bash', ['--noprofile', '--norc', '-e', '-o', 'pipefail', '-c', script], {
    cwd: r.dir,
    encoding: 'utf8',
    timeout: 300_000,
    env: {
      ...process.env,
      ...TEST_GIT_ENV,
      REVLOOP_CONFINE: 'off',
      npm_config_cache: npmCache,
      npm_config_offline: 'true',
      CI_MERGE_REQUEST_TARGET_BRANCH_NAME: 'main',
      CI_MERGE_REQUEST_IID: '7',
      REVLOOP_SRC: `file://${source}`,
      REVLOOP_REF: 'vtest',
      REVLOOP_REVIEW: 'false',
      REVLOOP_PUBLISH: 'false',
      REVLOOP_ALLOW_FINDINGS: 'false',
      REVLOOP_REQUIRE_CONFINED: 'false',
      ...vars,
    },
  });
  const verify = JSON.parse(readFileSync(join(r.dir, 'revloop-verify.json'), 'utf8')) as {
    ok: boolean;
    code: string;
  };
  return { code: res.status, out: `${res.stdout}\n${res.stderr}`, verify };
}

async function mergeRequest(reply: unknown): Promise<ReviewRepo> {
  const r = await makeReviewRepo({ config: (a) => baseConfig(a) });
  repos.push(r);
  r.plan({ reviewer: [{ reply }] });
  git(r.dir, ['remote', 'add', 'origin', r.dir]);
  return r;
}

describe('the GitLab job script under bash -e -o pipefail', () => {
  it('review: true with findings: the review exits 1, verify refuses, the job fails with its code', async () => {
    const r = await mergeRequest(findings(raceFinding()));
    const res = runJob(r, { REVLOOP_REVIEW: 'true' });
    expect(res.out).toContain('review exited 1');
    expect(res.verify).toMatchObject({ ok: false, code: 'findings' });
    expect(res.code, res.out).toBe(1);
  }, 300_000);

  it('a record of another commit in the notes: refused, printed, and the job fails', async () => {
    const r = await mergeRequest(pass);
    const reviewed = await runCli(['review', '--base', 'main', '--out', 'old.json', '--json'], {
      cwd: r.dir,
    });
    expect(reviewed.code, reviewed.stderr).toBe(0);
    r.repo.write('src/later.js', 'export const later = 1;\n');
    r.repo.commit('after the review');
    git(r.dir, ['notes', '--ref=revloop', 'add', '-f', '-F', join(r.dir, 'old.json'), 'HEAD']);
    const res = runJob(r, {});
    expect(res.verify).toMatchObject({ ok: false, code: 'subject_mismatch' });
    expect(res.out).toContain('"subject_mismatch"');
    expect(res.code).not.toBe(0);
  }, 300_000);
});
