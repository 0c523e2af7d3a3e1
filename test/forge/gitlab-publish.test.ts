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
  HEAD_FILE,
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
    { store: p.store, git: createGit(), repoRoot: r.dir, env: {} },
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
        { old_path: 'src/calc.js', new_path: 'src/calc.js', new_line: '14', head_sha: r.head },
        { old_path: 'src/calc.js', new_path: 'src/calc.js', new_line: '9', head_sha: r.head },
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
    // The old head's status now says superseded (GitLab has no neutral: failed, the description says why).
    const old = [...gl.statuses].reverse().find((x) => x.sha === r.head);
    expect(old?.description).toMatch(/^neutral: superseded: /);
    expect(gl.counts()).toEqual({ notes: 2, discussions: 2, statuses: 3 });
    const settled = gl.counts();
    expect((await publish(second.run.id)).writes).toBe(0);
    expect(gl.counts()).toEqual(settled);
  });

  it('a force-push mid-run: no discussion, and the status on the new head says stale', async () => {
    r.plan({ 'reviewer:correctness': [{ reply: findings(raceFinding(), mention) }] });
    const run = await review(p, r.dir);
    r.repo.git(['reset', '-q', '--hard', r.base]);
    r.repo.write('src/calc.js', HEAD_FILE.replace('const seen = total;', 'const seen = total; // rewritten'));
    const forced = r.repo.commit('rewritten history');
    pushTo(forced);
    const res = await publish(run.run.id);
    expect(res.stale).toBe(true);
    expect(gl.counts()).toEqual({ notes: 0, discussions: 0, statuses: 1 });
    expect(gl.statuses[0]).toMatchObject({ sha: forced, status: 'failed' });
    expect(gl.statuses[0]?.description).toMatch(/^neutral: stale: /);
  });

  it("a person's resolution is respected: not edited, not reopened, not posted again", async () => {
    r.plan({ 'reviewer:correctness': [{ reply: findings(raceFinding(), mention) }] });
    const first = await review(p, r.dir);
    await publish(first.run.id);
    const dismissed = gl.discussions.find((d) => d.notes[0]?.body.includes('module state'));
    if (!dismissed) throw new Error('no discussion of the module-state claim');
    gl.resolveAs('alice', dismissed.id);
    const before = dismissed.notes[0]?.body;

    r.repo.write('src/other.js', 'export const x = 1;\n');
    const next = r.repo.commit('unrelated');
    pushTo(next);
    r.plan({ 'reviewer:correctness': [{ reply: findings(raceFinding(), mention) }] });
    const second = await review(p, r.dir);
    await publish(second.run.id);
    expect(dismissed.notes[0]?.body).toBe(before);
    expect(dismissed.notes[0]).toMatchObject({ resolved: true, resolved_by: { username: 'alice' } });
    const threads = gl.discussions.filter(
      (d) => !d.individual_note && d.notes[0]?.body.includes('module state'),
    );
    expect(threads).toHaveLength(1);
  });

  it('a claim refuted on the change and raised again on the next run is not posted again', async () => {
    await p.close();
    await r.cleanup();
    r = await makeReviewRepo({ config: (a) => baseConfig(a, { refuter: { ...a } }) });
    p = await inProcess(r.dir);
    pushTo(r.head);
    r.plan({
      'reviewer:correctness': [{ reply: findings(raceFinding(), mention) }],
      refuter: [
        { when: 'module state', reply: { decision: 'refuted', reason: 'calc.js is loaded once per worker' } },
        { reply: { decision: 'upheld', reason: 'the race is real' } },
      ],
    });
    const first = await review(p, r.dir);
    await publish(first.run.id);
    expect(gl.counts()).toMatchObject({ notes: 1, discussions: 1 });

    r.repo.write('src/other.js', 'export const x = 1;\n');
    const next = r.repo.commit('unrelated');
    pushTo(next);
    r.plan({
      'reviewer:correctness': [{ reply: findings(raceFinding(), mention) }],
      refuter: [{ reply: { decision: 'upheld', reason: 'upheld this time' } }],
    });
    const second = await review(p, r.dir);
    await publish(second.run.id);
    expect(gl.counts()).toMatchObject({ notes: 2, discussions: 1 });
    expect(gl.discussions.some((d) => !d.individual_note && d.notes[0]?.body.includes('module state'))).toBe(
      false,
    );
  });

  it('on a file moved with an edit, each discussion names both paths, and an unchanged line by both numbers', async () => {
    await p.close();
    await r.cleanup();
    const lines = Array.from({ length: 12 }, (_, i) => `export const v${i} = ${i};`);
    r = await makeReviewRepo({
      config: (a) => baseConfig(a),
      files: { 'src/old.js': `${lines.join('\n')}\n` },
      change: {
        'src/new.js': `${lines.map((l, i) => (i === 5 ? 'export const v5 = -5;' : l)).join('\n')}\n`,
      },
    });
    r.repo.git(['rm', '-q', 'src/old.js']);
    const head = r.repo.commit('move and edit');
    p = await inProcess(r.dir);
    // GitLab's diffs of a merge request follow renames: the moved file is one entry, old and new path.
    gl.mr.base = r.base;
    gl.mr.start = r.base;
    gl.mr.head = head;
    gl.mr.diffs = r.repo
      .git(['diff', '-M', '--no-color', '-U3', r.base, head])
      .split(/^diff --git /m)
      .slice(1)
      .map((part) => ({
        old_path: /^rename from (.+)$/m.exec(part)?.[1] ?? '',
        new_path: /^rename to (.+)$/m.exec(part)?.[1] ?? '',
        diff: part.slice(part.indexOf('\n@@') + 1),
        deleted_file: false,
      }));
    expect(gl.mr.diffs.map((d) => [d.old_path, d.new_path])).toEqual([['src/old.js', 'src/new.js']]);
    const at = (line: number, claim: string) => ({
      severity: 'MAJOR',
      file: 'src/new.js',
      line,
      claim,
      failureScenario: `importing src/new.js and reading line ${line} shows it`,
    });
    r.plan({
      'reviewer:correctness': [
        { reply: findings(at(6, 'v5 flips its sign'), at(4, 'v3 is exported twice')) },
      ],
    });
    const run = await review(p, r.dir, { headRef: r.branch });
    await publish(run.run.id);
    const positions = gl.discussions.filter((d) => !d.individual_note).map((d) => d.notes[0]?.position);
    expect(positions).toEqual(
      expect.arrayContaining([
        // The edited line: added, the new number alone.
        { old_path: 'src/old.js', new_path: 'src/new.js', new_line: '6', head_sha: head },
        // An unchanged line of the hunk: both numbers.
        { old_path: 'src/old.js', new_path: 'src/new.js', old_line: '4', new_line: '4', head_sha: head },
      ]),
    );
    expect(positions).toHaveLength(2);
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
