/**
 * Invariant 17 on GitLab: real loops published with gitbeaker, unchanged, to
 * a loopback GitLab that checks each request's documented shape.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { forgeAdapter } from '../../src/forge/index.js';
import { DEFAULT_PUBLISH_OPTIONS, publishRun } from '../../src/forge/publish.js';
import { createGit } from '../../src/git/index.js';
import {
  baseConfig,
  FIXED_FILE,
  findings,
  type InProcess,
  inProcess,
  makeReviewRepo,
  pass,
  type ReviewRepo,
  raceFinding,
  review,
} from '../loop/helpers.js';
import { FakeGitLab } from './fake-gitlab.js';
import { patches } from './setup.js';

let gl: FakeGitLab;
let r: ReviewRepo;
let p: InProcess;

const mention = {
  severity: 'MAJOR',
  file: 'src/calc.js',
  line: 9,
  claim: 'total is module state @security-team should see',
  failureScenario: 'two test files that import calc.js see each other deposits',
};

function pushTo(head: string) {
  gl.mr.base = r.base;
  gl.mr.start = r.base;
  gl.mr.head = head;
  gl.mr.diffs = patches(r.repo, r.base, head).map((f) => ({
    old_path: f.filename,
    new_path: f.filename,
    diff: f.patch,
    deleted_file: f.status === 'removed',
  }));
}

async function publish(runId: string, token = 'glpat-bot') {
  const adapter = await forgeAdapter({
    forge: 'gitlab',
    repository: gl.project,
    number: 7,
    apiUrl: gl.url,
    token,
    tokenEnv: 'GITLAB_TOKEN',
  });
  return publishRun(
    { store: p.store, git: createGit(), repoRoot: r.dir },
    { runId, adapter, options: DEFAULT_PUBLISH_OPTIONS },
  );
}

beforeEach(async () => {
  gl = await new FakeGitLab().start();
  gl.tokens.set('glpat-bot', { username: 'revloop-bot', canWrite: true });
  gl.tokens.set('glpat-reader', { username: 'revloop-bot', canWrite: false });
  r = await makeReviewRepo({ config: (a) => baseConfig(a) });
  p = await inProcess(r.dir);
  pushTo(r.head);
});

afterEach(async () => {
  expect(gl.violations).toEqual([]);
  await p.close();
  await r.cleanup();
  await gl.stop();
});

describe('GitLab publication (invariant 17)', () => {
  it('discussions with a position, a failed status; again: nothing new; a fix and a clear run: resolved and success', async () => {
    r.plan({ 'reviewer:correctness': [{ reply: findings(raceFinding(), mention) }] });
    const first = await review(p, r.dir);
    const res = await publish(first.run.id);
    expect(gl.counts()).toEqual({ notes: 1, discussions: 2, statuses: 1 });
    const positions = gl.discussions.filter((d) => !d.individual_note).map((d) => d.notes[0]?.position);
    expect(positions).toEqual(
      expect.arrayContaining([
        { new_path: 'src/calc.js', new_line: '14', head_sha: r.head },
        { new_path: 'src/calc.js', new_line: '9', head_sha: r.head },
      ]),
    );
    expect(gl.discussions.some((d) => /@security/.test(d.notes[0]?.body ?? ''))).toBe(false);
    expect(gl.statuses[0]).toMatchObject({ sha: r.head, status: 'failed', name: 'revloop' });
    expect(res.check.conclusion).toBe('failure');

    const again = await publish(first.run.id);
    expect(again.writes).toBe(0);
    expect(gl.counts()).toEqual({ notes: 1, discussions: 2, statuses: 1 });

    r.repo.write('src/calc.js', FIXED_FILE.replace('let total = 0;', 'let total = 0; // per worker'));
    const fixed = r.repo.commit('fix');
    pushTo(fixed);
    r.plan({ 'reviewer:correctness': [{ reply: pass }] });
    const second = await review(p, r.dir);
    const done = await publish(second.run.id);
    expect(done.check).toMatchObject({ sha: fixed, conclusion: 'success' });
    expect(gl.discussions.filter((d) => !d.individual_note).every((d) => d.notes[0]?.resolved)).toBe(true);
    expect(gl.counts()).toEqual({ notes: 2, discussions: 2, statuses: 2 });
  });

  it('a token that cannot write publishes nothing and says what was refused', async () => {
    r.plan({ 'reviewer:correctness': [{ reply: findings(raceFinding()) }] });
    const run = await review(p, r.dir);
    await expect(publish(run.run.id, 'glpat-reader')).rejects.toMatchObject({
      status: 403,
      written: 0,
      message: expect.stringMatching(/^POST note on 42!7 refused \(403\)/),
    });
    expect(gl.counts()).toEqual({ notes: 0, discussions: 0, statuses: 0 });
  });
});
