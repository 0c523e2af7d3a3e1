/**
 * The Action's committed entry (action/dist/index.mjs) run as the GitHub
 * runner runs a `node24` action (./runner.ts), against the real revloop on a
 * real repository. docs/ci.md promises: a summary, the outputs `ok`/`code`/
 * `run-id` and an `::error` on refusal, and the step failing with verify's
 * exit code; with `review: true` the review's exit code is not the gate,
 * verify is. Bad input (a wrong input value, an unsupported Node, no SQLite
 * driver) is one line, and the outputs are still written.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  baseConfig,
  ensureBuilt,
  findings,
  makeReviewRepo,
  pass,
  type ReviewRepo,
  ROOT,
  raceFinding,
  runCli,
  testEnv,
} from '../loop/helpers.js';
import { type ActionResult, errorCommands, runAction } from './runner.js';

const repos: ReviewRepo[] = [];
/**
 * review: true with the fixture agent, which reads its plan from the temp dir that confinement
 * hides: unconfined on purpose (the test below shows the default passes --require-confined).
 */
const reviewing = { review: 'true', 'require-confined': 'false' };

beforeAll(() => ensureBuilt(), 600_000);

afterAll(async () => {
  for (const r of repos) await r.cleanup();
});

async function repoWith(reply: unknown): Promise<ReviewRepo> {
  const r = await makeReviewRepo({ config: (a) => baseConfig(a) });
  repos.push(r);
  r.plan({ reviewer: [{ reply }] });
  return r;
}

function action(
  r: ReviewRepo,
  inputs: Record<string, string>,
  o: { env?: NodeJS.ProcessEnv; node?: string } = {},
): Promise<ActionResult> {
  const env = testEnv(o.env);
  delete env.GITHUB_BASE_REF;
  return runAction({ actionDir: ROOT, inputs, workspace: r.dir, env, ...(o.node ? { node: o.node } : {}) });
}

describe('the action entry under the runner', () => {
  it('verify ok: summary, outputs, the step succeeds', async () => {
    const r = await repoWith(pass);
    const rec = join(r.dir, 'rec.json');
    const rev = await runCli(['review', '--head', r.branch, '--out', rec], { cwd: r.dir });
    expect(rev.code, rev.stderr).toBe(0);
    const res = await action(r, { record: rec });
    expect(res.code, res.stdout + res.stderr).toBe(0);
    expect(res.outputs).toMatchObject({ ok: 'true', code: 'ok' });
    expect(res.outputs['run-id']).toMatch(/^r/);
    expect(res.summary).toContain('### ✅ revloop verify: ok');
    expect(errorCommands(res)).toEqual([]);
    // Trusted keys given as a newline-separated input (a trailing newline, as YAML's `|` leaves).
    const withKey = await action(r, { record: rec, key: `${join(r.dir, '.revloop/keys/signing.pub')}\n` });
    expect(withKey.code, withKey.stdout + withKey.stderr).toBe(0);
  }, 120_000);

  it('a refused record: summary, outputs and ::error are written, and the step fails with verify’s code', async () => {
    const r = await repoWith(pass);
    const rec = join(r.dir, 'rec.json');
    expect((await runCli(['review', '--head', r.branch, '--out', rec], { cwd: r.dir })).code).toBe(0);
    // A push after the review: the record no longer covers HEAD.
    r.repo.write('src/calc.js', '// changed after the review\n');
    r.repo.commit('after the review');
    const res = await action(r, { record: rec });
    expect(res.code, res.stderr).toBe(3);
    expect(res.outputs).toMatchObject({ ok: 'false', code: 'subject_mismatch' });
    expect(res.outputs['run-id']).toMatch(/^r/);
    expect(res.summary).toContain('### ❌ revloop verify: refused (subject\\_mismatch)');
    const errs = errorCommands(res);
    expect(errs).toHaveLength(1);
    expect(errs[0]).toMatch(/^::error title=revloop verify::subject_mismatch: record covers /);
  }, 120_000);

  it('review: true with findings and allow-findings true: the review goes on, verify accepts', async () => {
    const r = await repoWith(findings(raceFinding()));
    const res = await action(r, { ...reviewing, 'allow-findings': 'true' });
    expect(res.code, res.stdout + res.stderr).toBe(0);
    expect(res.stdout).toContain('review exited 1');
    // The review's annotations and its summary reached the runner.
    expect(errorCommands(res)[0]).toMatch(/^::error file=src\/calc\.js,line=11,endLine=14,/);
    expect(res.summary).toContain('revloop review: completed: findings');
    expect(res.outputs).toMatchObject({ ok: 'true', code: 'ok' });
    expect(res.summary).toContain('### ✅ revloop verify: ok');
  }, 120_000);

  it('review: true with findings and allow-findings false: verify refuses, the action fails with exit 1', async () => {
    const r = await repoWith(findings(raceFinding()));
    const res = await action(r, reviewing);
    expect(res.code, res.stderr).toBe(1);
    expect(res.outputs).toMatchObject({ ok: 'false', code: 'findings' });
    expect(res.summary).toContain('revloop review: completed: findings');
    expect(res.summary).toContain('### ❌ revloop verify: refused (findings)');
    expect(errorCommands(res).at(-1)).toMatch(/^::error title=revloop verify::findings: /);
  }, 120_000);

  it('review: true on a run that did not complete: no record, so verify refuses (never ok)', async () => {
    const r = await repoWith(pass);
    r.plan({ reviewer: [{ exit: 1 }] });
    const res = await action(r, reviewing);
    expect(res.stdout).toContain('review exited 3');
    expect(res.code).toBe(3);
    expect(res.outputs).toMatchObject({ ok: 'false', code: 'not_completed' });
    expect(res.summary).toContain('revloop review: failed');
    expect(res.summary).toContain('### ❌ revloop verify: no record (not_completed)');
    expect(errorCommands(res).filter((l) => l.startsWith('::error title=revloop verify'))).toHaveLength(1);
  }, 120_000);

  it('review: true passes --require-confined: without bwrap the review refuses to start (code not_confined, exit 14)', async () => {
    const r = await repoWith(pass);
    // A PATH with node and git but no bwrap: confinement is not available.
    const bin = mkdtempSync(join(tmpdir(), 'revloop-nobwrap-'));
    for (const tool of ['git', 'sh'])
      execFileSync('ln', [
        '-s',
        execFileSync('sh', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).trim(),
        join(bin, tool),
      ]);
    try {
      const res = await action(r, { review: 'true' }, { env: { PATH: bin } });
      expect(res.code, res.stdout + res.stderr).toBe(14);
      expect(res.outputs).toMatchObject({ ok: 'false', code: 'not_confined', 'run-id': '' });
      expect(errorCommands(res)).toEqual([
        expect.stringMatching(/^::error title=revloop verify::revloop review refused to run unconfined/),
      ]);
      // Unconfined on purpose: the same job reviews and verifies.
      const off = await action(r, { review: 'true', 'require-confined': 'false' }, { env: { PATH: bin } });
      expect(off.code, off.stdout + off.stderr).toBe(0);
      expect(off.outputs).toMatchObject({ ok: 'true', code: 'ok' });
    } finally {
      rmSync(bin, { recursive: true, force: true });
    }
  }, 120_000);

  it('publish: true where publishing fails (no token): a warning, the job goes on, verify is the gate', async () => {
    const r = await repoWith(pass);
    const res = await action(r, { ...reviewing, publish: 'true' });
    expect(`${res.stdout}\n${res.stderr}`).toMatch(/^::warning title=revloop publish::publish exited [1-9]/m);
    expect(res.code, res.stdout + res.stderr).toBe(0);
    expect(res.outputs).toMatchObject({ ok: 'true', code: 'ok' });
  }, 120_000);

  it('no record at all: a usage error with its summary, outputs and ::error', async () => {
    const r = await repoWith(pass);
    const res = await action(r, {});
    expect(res.code).toBe(2);
    expect(res.outputs).toMatchObject({ ok: 'false', code: 'usage' });
    expect(res.summary).toContain('### ❌ revloop verify: no record (usage)');
    expect(errorCommands(res)[0]).toMatch(/^::error title=revloop verify::no revloop record for [0-9a-f]{7}/);
  }, 120_000);
});

describe('bad input to the action', () => {
  it('an input with a wrong value: one line naming it, outputs written, exit 2', async () => {
    const r = await repoWith(pass);
    const res = await action(r, { review: 'yes' });
    expect(res.code).toBe(2);
    expect(errorCommands(res)).toEqual([
      "::error title=revloop verify::input 'review' must be 'true' or 'false', got 'yes'",
    ]);
    expect(res.outputs).toEqual({ ok: 'false', code: 'usage', 'run-id': '' });
    expect(existsSync(join(r.dir, '.revloop'))).toBe(false);
  }, 60_000);

  it.skipIf(!existsSync('/usr/bin/node') || nodeMajor('/usr/bin/node') >= 22)(
    'a Node it does not support (the machine’s Node 20): one line naming it, outputs written, exit 2',
    async () => {
      const r = await repoWith(pass);
      const res = await action(r, {}, { node: '/usr/bin/node' });
      expect(res.code).toBe(2);
      expect(errorCommands(res)).toEqual([
        expect.stringMatching(
          /^::error title=revloop verify::revloop needs Node\.js 22 or later and this step runs Node\.js 20\./,
        ),
      ]);
      expect(res.outputs).toEqual({ ok: 'false', code: 'usage', 'run-id': '' });
    },
    60_000,
  );
});

function nodeMajor(node: string): number {
  return Number(
    execFileSync(node, ['-p', 'process.versions.node.split(".")[0]'], { encoding: 'utf8' }).trim(),
  );
}
