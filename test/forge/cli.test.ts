/**
 * `revloop publish` and `review --publish` as real processes against the
 * fake GitHub: exit codes, one-line errors, nothing half-posted, and the
 * ledger and record untouched by a refusal.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  baseConfig,
  ensureBuilt,
  findings,
  type InProcess,
  inProcess,
  makeReviewRepo,
  type ReviewRepo,
  raceFinding,
  review,
  runCli,
  testEnv,
} from '../loop/helpers.js';
import type { FakeGitHub } from './fake-github.js';
import { pushTo, startGitHub, TOKENS } from './setup.js';

let gh: FakeGitHub;
let r: ReviewRepo;
let p: InProcess;
let tmp: string;

// The build runs once here when src/ changed; on a loaded machine it can take minutes.
beforeAll(() => ensureBuilt(), 600_000);

beforeEach(async () => {
  gh = await startGitHub();
  r = await makeReviewRepo({ config: (a) => baseConfig(a) });
  p = await inProcess(r.dir);
  pushTo(gh, r.repo, 7, r.base, r.head);
  r.plan({ 'reviewer:correctness': [{ reply: findings(raceFinding()) }] });
  tmp = mkdtempSync(join(tmpdir(), 'revloop-forge-cli-'));
  writeFileSync(join(tmp, 'event.json'), JSON.stringify({ pull_request: { number: 7 } }));
});

afterEach(async () => {
  expect(gh.violations).toEqual([]);
  await p.close();
  await r.cleanup();
  await gh.stop();
  rmSync(tmp, { recursive: true, force: true });
});

const env = (extra: NodeJS.ProcessEnv = {}) =>
  testEnv({
    GITHUB_TOKEN: TOKENS.app,
    GITHUB_REPOSITORY: 'acme/widgets',
    GITHUB_API_URL: gh.url,
    GITHUB_EVENT_PATH: join(tmp, 'event.json'),
    ...extra,
  });

/** What a refusal must leave as it was: the run's ledger rows and its record. */
async function ledgerState(runId: string) {
  const run = await p.store.getRun(runId);
  return {
    run,
    findings: await p.store.listFindings(runId),
    rounds: await p.store.listRounds(runId),
    stages: await p.store.listStages(runId),
    record: run?.recordPath ? readFileSync(run.recordPath, 'utf8') : null,
  };
}

describe('revloop publish', () => {
  it('publishes from the CI environment and prints what it did with --json', async () => {
    const run = await review(p, r.dir);
    const res = await runCli(['publish', run.run.id, '--to', 'github', '--json'], { cwd: r.dir, env: env() });
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    expect(res.json).toMatchObject({
      published: true,
      reviewId: String(gh.reviews[0]?.id),
      comments: { created: 1, updated: 0, resolved: 0 },
      check: { sha: r.head, conclusion: 'failure', kind: 'check_run' },
    });
    expect(res.stdout).not.toContain(TOKENS.app);
  });

  it.each([
    [
      'a read-only token (a fork)',
      { GITHUB_TOKEN: TOKENS.readOnly },
      [],
      /POST review on acme\/widgets#7 refused \(403\): Resource not accessible by integration; nothing was published/,
    ],
    [
      'a pull request that does not exist',
      {},
      ['--pr', '999'],
      /GET pull request acme\/widgets#999 refused \(404\): Not Found; nothing was published/,
    ],
  ])(
    '%s: one line, exit 8, nothing posted, ledger and record untouched',
    async (_n, extra, args, message) => {
      const run = await review(p, r.dir);
      const before = await ledgerState(run.run.id);
      const res = await runCli(['publish', run.run.id, '--to', 'github', ...args], {
        cwd: r.dir,
        env: env(extra),
      });
      expect(res.code).toBe(8);
      expect(res.stderr.trim().split('\n')).toHaveLength(1);
      expect(res.stderr).toMatch(message);
      expect(res.stderr).not.toContain(TOKENS.readOnly);
      expect(gh.counts()).toEqual({ reviews: 0, comments: 0, checkRuns: 0, statuses: 0 });
      expect(await ledgerState(run.run.id)).toEqual(before);
    },
  );

  it("the config's publish keys apply (read from the run's frozen config), and a flag overrides them", async () => {
    await p.close();
    await r.cleanup();
    r = await makeReviewRepo({
      config: (a) => baseConfig(a, { publish: { github: { event: 'REQUEST_CHANGES' } } }),
    });
    p = await inProcess(r.dir);
    pushTo(gh, r.repo, 7, r.base, r.head);
    r.plan({ 'reviewer:correctness': [{ reply: findings(raceFinding()) }] });
    const run = await review(p, r.dir);
    const res = await runCli(['publish', run.run.id, '--to', 'github'], { cwd: r.dir, env: env() });
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    expect(gh.reviews.map((v) => v.state)).toEqual(['CHANGES_REQUESTED']);

    // The same run published to another pull request with --event COMMENT: the flag wins over the config.
    const other = await startGitHub();
    try {
      pushTo(other, r.repo, 7, r.base, r.head);
      const flagged = await runCli(['publish', run.run.id, '--to', 'github', '--event', 'COMMENT'], {
        cwd: r.dir,
        env: env({ GITHUB_API_URL: other.url }),
      });
      expect(flagged.code).toBe(0);
      expect(other.reviews.map((v) => v.state)).toEqual(['COMMENTED']);
      expect(other.violations).toEqual([]);
    } finally {
      await other.stop();
    }
  });

  it('a line the forge refuses (422): the review is one call, so nothing is half-posted', async () => {
    const run = await review(p, r.dir);
    gh.faults.push({
      method: 'POST',
      path: '/pulls/7/reviews',
      status: 422,
      body: { message: 'Unprocessable Entity', errors: ['Line could not be resolved'] },
    });
    const res = await runCli(['publish', run.run.id, '--to', 'github', '--json'], { cwd: r.dir, env: env() });
    expect(res.code).toBe(8);
    expect(res.stderr).toMatch(
      /refused \(422\): Unprocessable Entity; Line could not be resolved; nothing was published/,
    );
    expect(res.json).toMatchObject({ published: false, partly: false, status: 422 });
    expect(gh.counts()).toEqual({ reviews: 0, comments: 0, checkRuns: 0, statuses: 0 });
  });

  it.each([
    [{ GITHUB_TOKEN: undefined }, [], /no token: set GITHUB_TOKEN or GH_TOKEN/],
    [{ GITHUB_EVENT_PATH: undefined }, [], /no pull request: pass --pr N/],
    [{}, ['--pr', 'seven'], /--pr must be a positive number, not "seven"/],
    [
      {},
      ['--event', 'APPROVE'],
      /--event <e>' argument 'APPROVE' is invalid\. Allowed choices are COMMENT, REQUEST_CHANGES\./,
    ],
    [{}, ['--token-env', 'NOT-A-NAME'], /--token-env must name an environment variable/],
  ])('bad input %j %j: one line, exit 2', async (extra, args, message) => {
    const run = await review(p, r.dir);
    const res = await runCli(['publish', run.run.id, '--to', 'github', ...args], {
      cwd: r.dir,
      env: env(extra),
    });
    expect(res.code).toBe(2);
    expect(res.stderr.trim().split('\n')).toHaveLength(1);
    expect(res.stderr).toMatch(message);
    expect(gh.requests).toEqual([]);
  });
});

describe('review --publish', () => {
  it('a read-only token: one line, the job summary and the SARIF written, exit by the run outcome', async () => {
    const summary = join(tmp, 'summary.md');
    const res = await runCli(['review', '--head', 'topic', '--publish', 'github', '--json'], {
      cwd: r.dir,
      env: env({ GITHUB_TOKEN: TOKENS.readOnly, GITHUB_STEP_SUMMARY: summary }),
    });
    expect(res.code).toBe(1);
    expect(res.stderr.trim().split('\n')).toHaveLength(1);
    expect(res.stderr).toMatch(
      /^revloop: publish to acme\/widgets#7: .*refused \(403\).*the job summary and .*\.sarif carry the result$/m,
    );
    expect(readFileSync(summary, 'utf8')).toContain('revloop review');
    const published = (res.json as { published: { sarif: string; published: boolean } }).published;
    expect(published.published).toBe(false);
    expect(existsSync(published.sarif)).toBe(true);
    expect(gh.counts()).toEqual({ reviews: 0, comments: 0, checkRuns: 0, statuses: 0 });
  });

  it('a missing token is a usage error before the loop spends anything', async () => {
    const res = await runCli(['review', '--head', 'topic', '--publish', 'github'], {
      cwd: r.dir,
      env: env({ GITHUB_TOKEN: undefined }),
    });
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/no token/);
    expect(await p.store.listRuns()).toEqual([]);
  });

  it('publishes a clear run and exits 0', async () => {
    r.plan({ 'reviewer:correctness': [{ reply: { verdict: 'pass', findings: [] } }] });
    const res = await runCli(['review', '--head', 'topic', '--publish', 'github'], {
      cwd: r.dir,
      env: env(),
    });
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    expect(res.stdout).toContain(`published to acme/widgets#7: check success on ${r.head.slice(0, 7)}`);
    expect(gh.checkRuns).toMatchObject([{ head_sha: r.head, conclusion: 'success' }]);
  });
});
