/**
 * Invariant 17 on GitHub, end to end: real repositories, real loops with
 * subprocess agents, the real SQLite ledger and signed records, octokit
 * unchanged against a loopback GitHub that validates every request against
 * GitHub's OpenAPI description. Each scenario asserts the forge's state.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
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
import type { FakeGitHub, Fault } from './fake-github.js';
import { publishGitHub, pushTo, startGitHub, TOKENS } from './setup.js';

const shared = (extra: Record<string, unknown> = {}) => ({
  severity: 'MAJOR',
  file: 'src/calc.js',
  line: 9,
  claim: 'total is module state shared by every caller',
  failureScenario: 'two test files that import calc.js see each other deposits and assert wrong totals',
  ...extra,
});
const minor = { severity: 'MINOR', file: 'src/calc.js', line: 10, claim: 'deposit has no doc comment' };

let gh: FakeGitHub;
let r: ReviewRepo;
let p: InProcess;

async function setup(
  config: (a: { command: string[] }) => Record<string, unknown> = (a) => baseConfig(a),
  change?: Record<string, string>,
) {
  r = await makeReviewRepo({ config, change });
  p = await inProcess(r.dir);
  pushTo(gh, r.repo, 7, r.base, r.head);
}

beforeEach(async () => {
  gh = await startGitHub();
});

afterEach(async () => {
  expect(gh.violations).toEqual([]);
  await p?.close();
  await r?.cleanup();
  await gh.stop();
});

/**
 * Publishes `runId` with two retries to a second loopback GitHub whose every
 * review write gets `fault`: nothing is published and the refusal names the
 * fault's status. Returns that GitHub's requests.
 */
async function pastRetryBudget(
  runId: string,
  fault: Omit<Fault, 'method' | 'path' | 'times'>,
): Promise<FakeGitHub['requests']> {
  const other = await startGitHub();
  try {
    pushTo(other, r.repo, 7, r.base, r.head);
    other.faults.push({ method: 'POST', path: '/reviews', times: 10, ...fault });
    await expect(publishGitHub(p, r.dir, other, runId, { retries: 2 })).rejects.toMatchObject({
      written: 0,
      status: fault.status,
    });
    expect(other.counts()).toEqual({ reviews: 0, comments: 0, checkRuns: 0, statuses: 0 });
    return [...other.requests];
  } finally {
    await other.stop();
  }
}

const bodies = () => gh.comments.map((c) => c.body);

describe('GitHub publication (invariant 17)', () => {
  it('a first run with two blockers and a MINOR: one review, two inline comments, one failing check', async () => {
    await setup();
    r.plan({ 'reviewer:correctness': [{ reply: findings(raceFinding(), shared(), minor) }] });
    const run = await review(p, r.dir);
    expect(run.run.outcome).toBe('findings');
    const res = await publishGitHub(p, r.dir, gh, run.run.id);
    expect(gh.counts()).toEqual({ reviews: 1, comments: 2, checkRuns: 1, statuses: 0 });
    expect(gh.comments.map((c) => [c.path, c.start_line, c.line])).toEqual(
      expect.arrayContaining([
        ['src/calc.js', 11, 14],
        ['src/calc.js', null, 9],
      ]),
    );
    for (const b of bodies())
      expect(b).toMatch(/^<!-- revloop finding=[0-9a-f]{24} run=\S+ revision=[0-9a-f]{40} -->/);
    expect(gh.reviews[0]?.body).toContain('### Minor (1)');
    expect(gh.reviews[0]?.body).toContain('deposit has no doc comment');
    expect(gh.reviews[0]?.body).toContain('| files | 1 of 1 file(s) reviewed by every reviewer |');
    expect(gh.reviews[0]?.commit_id).toBe(r.head);
    expect(gh.checkRuns[0]).toMatchObject({ head_sha: r.head, name: 'revloop', conclusion: 'failure' });
    expect(res.check).toMatchObject({ sha: r.head, conclusion: 'failure', kind: 'check_run' });
  });

  it('a review that left files out by ignore: says so in the body GitHub accepts', async () => {
    await setup((a) => baseConfig(a, { ignore: ['dist/**'] }), {
      'src/calc.js': HEAD_FILE,
      'dist/calc.min.js': 'export const add=(a,b)=>a+b;\n',
    });
    r.plan({ 'reviewer:correctness': [{ reply: pass }] });
    const run = await review(p, r.dir);
    expect(run.run.outcome).toBe('clear');
    await publishGitHub(p, r.dir, gh, run.run.id);
    const body = gh.reviews[0]?.body ?? '';
    expect(body).toContain(
      '| files | 1 of 1 file(s) reviewed by every reviewer; 1 left out by `ignore:` (listed below) |',
    );
    expect(body).toContain('dist/calc.min.js');
    // afterEach: every request, this body included, validated against GitHub's OpenAPI description.
  });

  it('the same run published twice creates nothing new', async () => {
    await setup();
    r.plan({ 'reviewer:correctness': [{ reply: findings(raceFinding(), shared(), minor) }] });
    const run = await review(p, r.dir);
    await publishGitHub(p, r.dir, gh, run.run.id);
    const before = { counts: gh.counts(), writes: gh.writes(), bodies: bodies() };
    const again = await publishGitHub(p, r.dir, gh, run.run.id);
    expect(gh.counts()).toEqual(before.counts);
    expect(gh.writes()).toBe(before.writes);
    expect(bodies()).toEqual(before.bodies);
    expect(again.writes).toBe(0);
  });

  it('a fix pushed and a second run clear: both threads resolved, success on the new head, the old check superseded', async () => {
    await setup();
    r.plan({ 'reviewer:correctness': [{ reply: findings(raceFinding(), shared()) }] });
    const first = await review(p, r.dir);
    await publishGitHub(p, r.dir, gh, first.run.id);
    r.repo.write(
      'src/calc.js',
      FIXED_FILE.replace('let total = 0;', 'let total = 0; // per instance in tests'),
    );
    const fixed = r.repo.commit('fix the race');
    pushTo(gh, r.repo, 7, r.base, fixed);
    r.plan({ 'reviewer:correctness': [{ reply: pass }] });
    const second = await review(p, r.dir);
    expect(second.run.outcome).toBe('clear');
    const res = await publishGitHub(p, r.dir, gh, second.run.id);
    expect(res.check).toMatchObject({ sha: fixed, conclusion: 'success' });
    expect(gh.threads.every((t) => t.isResolved && t.resolvedBy === 'github-actions[bot]')).toBe(true);
    for (const b of bodies()) expect(b).toContain(`**Fixed** in \`${fixed.slice(0, 7)}\``);
    expect(gh.counts()).toMatchObject({ reviews: 2, comments: 2, checkRuns: 2 });
    const old = gh.checkRuns.find((c) => c.head_sha === r.head);
    expect(old).toMatchObject({ conclusion: 'neutral' });
    expect(old?.output.title).toContain('superseded');
  });

  it('a token that writes commit statuses: the status on the old head is marked superseded too', async () => {
    await setup();
    r.plan({ 'reviewer:correctness': [{ reply: findings(raceFinding()) }] });
    const first = await review(p, r.dir);
    const one = await publishGitHub(p, r.dir, gh, first.run.id, { token: TOKENS.pat });
    expect(one.check).toMatchObject({ sha: r.head, conclusion: 'failure', kind: 'status' });
    r.repo.write('src/calc.js', FIXED_FILE);
    const fixed = r.repo.commit('fix the race');
    pushTo(gh, r.repo, 7, r.base, fixed);
    r.plan({ 'reviewer:correctness': [{ reply: pass }] });
    const second = await review(p, r.dir);
    const res = await publishGitHub(p, r.dir, gh, second.run.id, { token: TOKENS.pat });
    expect(res.check).toMatchObject({ sha: fixed, conclusion: 'success', kind: 'status' });
    const latest = (sha: string) => [...gh.statuses].reverse().find((s) => s.sha === sha);
    expect(latest(fixed)).toMatchObject({ state: 'success', context: 'revloop' });
    expect(latest(r.head)).toMatchObject({ state: 'error' });
    expect(latest(r.head)?.description).toContain('superseded');
    // Statuses are known to be this token's kind now: no check run is attempted, and again writes nothing.
    expect(gh.requests.filter((q) => q.path.endsWith('/check-runs') && q.method === 'POST')).toHaveLength(1);
    const writes = gh.writes();
    const again = await publishGitHub(p, r.dir, gh, second.run.id, { token: TOKENS.pat });
    expect(again.writes).toBe(0);
    expect(gh.writes()).toBe(writes);
  });

  it('a plain 429 that names no limit is retried after its Retry-After, or a minute without one', async () => {
    await setup();
    r.plan({ 'reviewer:correctness': [{ reply: findings(raceFinding()) }] });
    const run = await review(p, r.dir);
    gh.faults.push(
      {
        method: 'POST',
        path: '/reviews',
        status: 429,
        headers: { 'retry-after': '1' },
        body: { message: 'Too Many Requests' },
      },
      { method: 'POST', path: '/check-runs', status: 429, body: { message: 'Too Many Requests' } },
    );
    const res = await publishGitHub(p, r.dir, gh, run.run.id);
    expect(res.check.conclusion).toBe('failure');
    expect(gh.requests.filter((q) => q.status === 429).map((q) => q.path)).toEqual([
      '/repos/acme/widgets/pulls/7/reviews',
      '/repos/acme/widgets/check-runs',
    ]);
    expect(gh.counts()).toMatchObject({ reviews: 1, comments: 1, checkRuns: 1 });

    // Past the budget nothing is published, and the refusal names the 429.
    const refused = await pastRetryBudget(run.run.id, {
      status: 429,
      body: { message: 'Too Many Requests' },
    });
    expect(refused.filter((q) => q.status === 429)).toHaveLength(3);
  });

  it('a claim refuted on the change and raised again on the next run is not posted again', async () => {
    await setup((a) => baseConfig(a, { refuter: { ...a } }));
    r.plan({
      'reviewer:correctness': [{ reply: findings(raceFinding(), shared()) }],
      refuter: [
        {
          when: 'module state',
          reply: { decision: 'refuted', reason: 'calc.js is loaded once per test worker' },
        },
        { reply: { decision: 'upheld', reason: 'the race is real' } },
      ],
    });
    const first = await review(p, r.dir);
    await publishGitHub(p, r.dir, gh, first.run.id);
    expect(gh.counts().comments).toBe(1);
    expect(gh.reviews[0]?.body).toMatch(/<details><summary>Refuted and demoted \(1\)<\/summary>/);
    expect(gh.reviews[0]?.body).toContain('calc.js is loaded once per test worker');

    r.repo.write('src/other.js', 'export const x = 1;\n');
    const next = r.repo.commit('unrelated');
    pushTo(gh, r.repo, 7, r.base, next);
    r.plan({
      'reviewer:correctness': [{ reply: findings(raceFinding(), shared()) }],
      refuter: [{ reply: { decision: 'upheld', reason: 'upheld this time' } }],
    });
    const second = await review(p, r.dir);
    await publishGitHub(p, r.dir, gh, second.run.id);
    expect(gh.counts()).toMatchObject({ reviews: 2, comments: 1 });
    expect(bodies().some((b) => b.includes('module state'))).toBe(false);
    expect(gh.reviews[1]?.body).toContain('Settled earlier on this change (1)');
  });

  it("a person's dismissal (their resolving the thread) is respected: not edited, not reopened, not posted again", async () => {
    await setup();
    r.plan({ 'reviewer:correctness': [{ reply: findings(raceFinding(), shared()) }] });
    const first = await review(p, r.dir);
    await publishGitHub(p, r.dir, gh, first.run.id);
    const dismissed = gh.comments.find((c) => c.body.includes('module state'));
    if (!dismissed) throw new Error('no comment on the shared-state claim');
    gh.resolveAs('alice', dismissed.id);
    const bodyBefore = dismissed.body;

    r.repo.write('src/other.js', 'export const x = 1;\n');
    pushTo(gh, r.repo, 7, r.base, r.repo.commit('unrelated'));
    const second = await review(p, r.dir);
    await publishGitHub(p, r.dir, gh, second.run.id);
    expect(gh.counts().comments).toBe(2);
    expect(dismissed.body).toBe(bodyBefore);
    expect(gh.threadOf(dismissed.id)).toMatchObject({ isResolved: true, resolvedBy: 'alice' });
    const race = gh.comments.find((c) => c !== dismissed);
    expect(race?.body).toContain(`run=${second.run.id}`);
    expect(gh.reviews[1]?.body).toContain('Dismissed on this pull request (1)');
  });

  it("a person's `settle --decision overturned` carries to the next run: the comment says dismissed and is resolved, never posted again", async () => {
    await setup();
    r.plan({ 'reviewer:correctness': [{ reply: findings(raceFinding(), shared()) }] });
    const first = await review(p, r.dir);
    await publishGitHub(p, r.dir, gh, first.run.id);
    const target = first.report.findings.find((f) => f.reported.claim.includes('module state'));
    if (!target) throw new Error('no shared-state finding');
    await p.store.settle(target.id, {
      by: 'alice',
      decision: 'overturned',
      note: 'one module per worker',
      at: Date.now(),
    });

    r.repo.write('src/other.js', 'export const x = 1;\n');
    pushTo(gh, r.repo, 7, r.base, r.repo.commit('unrelated'));
    const second = await review(p, r.dir);
    await publishGitHub(p, r.dir, gh, second.run.id);
    expect(gh.counts().comments).toBe(2);
    const c = gh.comments.find((x) => x.body.includes('module state'));
    expect(c?.body).toContain('**Dismissed** by alice: one module per worker');
    expect(gh.threadOf(c?.id ?? 0)).toMatchObject({ isResolved: true, resolvedBy: 'github-actions[bot]' });
  });

  it('a force-push mid-run: no inline comment, and the check on the new head says stale', async () => {
    await setup();
    r.plan({ 'reviewer:correctness': [{ reply: findings(raceFinding(), shared()) }] });
    const run = await review(p, r.dir);
    r.repo.git(['reset', '-q', '--hard', r.base]);
    r.repo.write('src/calc.js', HEAD_FILE.replace('const seen = total;', 'const seen = total; // rewritten'));
    const forced = r.repo.commit('rewritten history');
    pushTo(gh, r.repo, 7, r.base, forced);
    const res = await publishGitHub(p, r.dir, gh, run.run.id);
    expect(res.stale).toBe(true);
    expect(gh.counts()).toEqual({ reviews: 0, comments: 0, checkRuns: 1, statuses: 0 });
    expect(gh.checkRuns[0]).toMatchObject({ head_sha: forced, conclusion: 'neutral' });
    expect(gh.checkRuns[0]?.output.title).toMatch(/^stale: /);
  });

  it('fixes proposed on the run ref: suggestions inline and no success on the PR head; once pushed, success on it', async () => {
    await setup((a) => baseConfig(a, { fixer: { ...a } }));
    r.plan({
      'reviewer:correctness': [{ round: 1, reply: findings(raceFinding()) }, { reply: pass }],
      fixer: [{ write: { 'src/calc.js': FIXED_FILE }, reply: { disputed: [] } }],
    });
    const run = await review(p, r.dir);
    expect(run.run.outcome).toBe('clear');
    expect(run.run.head).not.toBe(r.head);
    const first = await publishGitHub(p, r.dir, gh, run.run.id);
    expect(first.check).toMatchObject({ sha: r.head, conclusion: 'failure' });
    expect(first.check.title).toMatch(/^fixes proposed/);
    expect(gh.comments).toHaveLength(1);
    expect(gh.comments[0]?.body).toContain('```suggestion\n');
    expect(gh.comments[0]?.body).toContain('lock = lock.then(() => {');

    pushTo(gh, r.repo, 7, r.base, run.run.head);
    const again = await publishGitHub(p, r.dir, gh, run.run.id);
    expect(again.check).toMatchObject({ sha: run.run.head, conclusion: 'success' });
    expect(gh.counts()).toMatchObject({ reviews: 1, comments: 1, checkRuns: 2 });
    expect(gh.threads[0]).toMatchObject({ isResolved: true });
  });

  it('a 429 and a secondary rate limit are retried within the budget; past it, nothing is published', async () => {
    await setup();
    r.plan({ 'reviewer:correctness': [{ reply: findings(raceFinding()) }] });
    const run = await review(p, r.dir);
    const reset = String(Math.floor(Date.now() / 1000) + 1);
    gh.faults.push(
      {
        method: 'POST',
        path: '/reviews',
        status: 429,
        headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': reset, 'retry-after': '1' },
        body: { message: 'API rate limit exceeded' },
      },
      {
        method: 'POST',
        path: '/check-runs',
        status: 403,
        headers: { 'retry-after': '2' },
        body: {
          message:
            'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.',
        },
      },
    );
    const res = await publishGitHub(p, r.dir, gh, run.run.id);
    expect(res.check.conclusion).toBe('failure');
    expect(
      gh.requests
        .filter((q) => (q.status === 429 || q.status === 403) && q.path !== '/user')
        .map((q) => q.path),
    ).toEqual([`/repos/acme/widgets/pulls/7/reviews`, `/repos/acme/widgets/check-runs`]);
    expect(gh.counts()).toMatchObject({ reviews: 1, comments: 1, checkRuns: 1 });

    await pastRetryBudget(run.run.id, {
      status: 403,
      headers: { 'retry-after': '1' },
      body: { message: 'You have exceeded a secondary rate limit.' },
    });
  });
});
