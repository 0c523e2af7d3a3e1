/**
 * `revloop init`, the README's quick start as a new user runs it: the files
 * it writes, what it refuses, and (with the real Claude Code CLI installed)
 * the whole flow on the config exactly as init wrote it: commit it on main,
 * change a branch, `revloop review --base main`, `revloop verify` the record.
 * The CLI talks only to a loopback model server; the starter `ignore:` list
 * leaves a lockfile out of the prompt and says so in coverage.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/config/parse.js';
import { ignoreMatcher } from '../../src/core/ignore.js';
import { claudeEnv, cleanupAgentHomes, findAgentClis } from '../helpers/agent-clis.js';
import { type AgentModelServer, answers, startAgentModelServer } from '../helpers/agent-model-server.js';
import { makeRepo, type TestRepo } from '../helpers/git-repo.js';
import { ensureBuilt, runCli, testEnv } from '../loop/helpers.js';

const repos: TestRepo[] = [];
beforeAll(() => ensureBuilt(), 300_000);
afterAll(async () => {
  for (const r of repos) await r.cleanup();
});

async function freshRepo(): Promise<TestRepo> {
  const repo = await makeRepo();
  repos.push(repo);
  repo.write('src/app.js', 'export const answer = 41;\n');
  repo.commit('app');
  return repo;
}

describe('revloop init', () => {
  it('writes a config that loads, criteria, a private signing key and .revloop/ in .gitignore; refuses to overwrite', async () => {
    const repo = await freshRepo();
    const res = await runCli(['init', '--json'], { cwd: repo.dir });
    expect(res.code, res.stderr).toBe(0);
    expect(res.json?.written).toEqual([
      'revloop.config.yaml',
      'REVIEW.md',
      '.gitignore',
      '.revloop/keys/signing.key',
      '.revloop/keys/signing.pub',
    ]);
    expect(statSync(join(repo.dir, '.revloop/keys/signing.key')).mode & 0o777).toBe(0o600);
    const config = parseConfigText(
      readFileSync(join(repo.dir, 'revloop.config.yaml'), 'utf8'),
      'revloop.config.yaml',
    );
    expect(config.reviewers.map((r) => r.name)).toEqual(['correctness']);
    // The starter ignore list: lockfiles, minified files and build output, at any depth; code is kept.
    const ignored = ignoreMatcher({ globs: config.ignore, attributes: [] });
    for (const p of [
      'package-lock.json',
      'web/yarn.lock',
      'Cargo.lock',
      'go.sum',
      'public/app.min.js',
      'dist/x.js',
    ])
      expect(ignored(p), p).toBeTruthy();
    for (const p of ['src/app.js', 'package.json', 'README.md', 'src/lock.ts'])
      expect(ignored(p), p).toBeNull();
    // Offered, not on: with it, every change to .gitattributes would need a person's settlement.
    expect(config.review.ignoreLinguist).toBe(false);

    // Again: one line naming what exists, exit 2, nothing rewritten; --force rewrites, .gitignore keeps one entry.
    const before = readFileSync(join(repo.dir, 'revloop.config.yaml'), 'utf8');
    const again = await runCli(['init'], { cwd: repo.dir });
    expect(again.code).toBe(2);
    expect(again.stderr.trim().split('\n')).toEqual([
      'revloop: a revloop config already exists (use --force to overwrite)',
    ]);
    expect(readFileSync(join(repo.dir, 'revloop.config.yaml'), 'utf8')).toBe(before);
    const forced = await runCli(['init', '--force', '--json'], { cwd: repo.dir });
    expect(forced.code, forced.stderr).toBe(0);
    expect(readFileSync(join(repo.dir, '.gitignore'), 'utf8').match(/^\.revloop\/$/gm)).toHaveLength(1);
    // The key is kept: records signed before still verify.
    expect(forced.json?.keyId).toBeNull();
  }, 120_000);
});

const clis = findAgentClis();
if (!clis.found)
  console.warn(`init.test.ts: the quick start with the real claude CLI is skipped: ${clis.why}`);

describe.skipIf(!clis.found)('the quick start on the config init wrote, with the real claude CLI', () => {
  let server: AgentModelServer;
  beforeAll(async () => {
    server = await startAgentModelServer();
  });
  afterAll(async () => {
    await server?.close();
    cleanupAgentHomes();
  });

  it('init, commit on main, change a branch, review --base main: clear, the lockfile left out, the record verifies', async () => {
    const repo = await freshRepo();
    const claude = clis.found ? clis.claude : '';
    // `claude` on PATH, as a user has it; the model endpoint is the loopback server.
    const env = testEnv({ ...claudeEnv(server), PATH: `${dirname(claude)}:${process.env.PATH}` });
    expect((await runCli(['init'], { cwd: repo.dir, env })).code).toBe(0);
    repo.git(['add', 'revloop.config.yaml', 'REVIEW.md', '.gitignore']);
    repo.git(['commit', '-q', '-m', 'revloop config']);
    repo.git(['switch', '-q', '-c', 'my-feature']);
    repo.write('src/app.js', 'export const answer = 42;\n');
    repo.write(
      'package-lock.json',
      `${JSON.stringify({ lockfileVersion: 3, packages: { '': {} } }, null, 2)}\n`,
    );
    repo.commit('the answer, and a lockfile');

    server.push(answers.json({ verdict: 'pass', findings: [] }));
    const res = await runCli(['review', '--base', 'main', '--json'], {
      cwd: repo.dir,
      env,
      timeoutMs: 180_000,
    });
    expect(res.code, res.stderr).toBe(0);
    expect(res.json).toMatchObject({ status: 'completed', outcome: 'clear' });
    const rounds = res.json?.rounds as {
      coverage: Record<string, { reviewed: string[]; ignored: unknown[] }>;
    }[];
    expect(rounds[0]?.coverage.correctness).toMatchObject({
      reviewed: ['src/app.js'],
      ignored: [{ path: 'package-lock.json', rule: 'ignore: "**/package-lock.json"' }],
    });
    expect(server.pending()).toBe(0);
    const record = res.json?.record as string;
    expect(existsSync(record)).toBe(true);
    const verified = await runCli(['verify', record], { cwd: repo.dir, env });
    expect(verified.code, verified.stdout + verified.stderr).toBe(0);
  }, 240_000);
});
