/**
 * Issue 15, point 20: what a newcomer is told, through the real CLI in real
 * repositories with real subprocess agents. Each message names what happened
 * and the way on: an unreviewed round never reads "0 blocking", a broken
 * refuter is `refuter_failed`, a bad ledger URL is a usage error, YAML errors
 * carry line and column, a push mid-run says how to review the new head, a
 * Ctrl-C'd run says how to resume it (twice over), a read-only ledger still
 * serves the read-only commands, a foreign record is a mismatch (exit 3), a
 * shallow clone says it is shallow.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_GIT_ENV } from '../helpers/git-repo.js';
import {
  baseConfig,
  CLI,
  type CliResult,
  ensureBuilt,
  findings,
  makeReviewRepo,
  type Plan,
  pass,
  type ReviewRepo,
  type ReviewRepoOptions,
  raceFinding,
  runCli,
  testEnv,
} from '../loop/helpers.js';

const repos: ReviewRepo[] = [];
const mounts: string[] = [];
const dirs: string[] = [];
beforeAll(() => ensureBuilt(), 120_000);
afterAll(async () => {
  for (const m of mounts) execFileSync('umount', [m]);
  for (const r of repos) await r.cleanup();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function repoWith(plan: Plan, o: Partial<ReviewRepoOptions> = {}): Promise<ReviewRepo> {
  const r = await makeReviewRepo({ config: (a) => baseConfig(a), ...o });
  repos.push(r);
  r.plan(plan);
  return r;
}

function oneLine(res: CliResult, code: number): string {
  expect(res.code, res.stderr).toBe(code);
  const lines = res.stderr.trim().split('\n');
  expect(lines, res.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^revloop: /);
  return lines[0] ?? '';
}

function tryMount(dir: string, size: string): string | null {
  mkdirSync(dir, { recursive: true });
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'pipe' });
    mounts.push(dir);
    return null;
  } catch (err) {
    return String((err as { stderr?: Buffer }).stderr ?? err).trim() || 'mount failed';
  }
}

describe('a run that ends without every verdict (point 20)', () => {
  it('shows its round as not reviewed, never "0 blocking", and --json has no blocking count', async () => {
    const r = await repoWith({}, { config: baseConfig({ command: ['/nonexistent/revloop-agent'] }) });
    const text = await runCli(['review', '--head', 'topic'], { cwd: r.dir });
    expect(text.code).toBe(3);
    expect(text.stdout).toMatch(/round 1 {2}\w{7} {2}not reviewed: no verdict from correctness/);
    expect(text.stdout).not.toMatch(/0 blocking/);
    const runId = /revloop run (\S+):/.exec(text.stdout)?.[1] ?? '';
    const j = await runCli(['status', runId, '--json'], { cwd: r.dir });
    expect((j.json as { rounds: unknown[] }).rounds[0]).toMatchObject({
      round: 1,
      reviewed: false,
      unanswered: ['correctness'],
      blocking: null,
    });
  });

  it('a refuter that cannot start ends the run refuter_failed, not reviewer_failed', async () => {
    const r = await repoWith(
      { reviewer: [{ reply: findings(raceFinding()) }] },
      { config: (a) => baseConfig(a, { refuter: { command: ['/nonexistent/revloop-refuter'] } }) },
    );
    const res = await runCli(['review', '--head', 'topic', '--json'], { cwd: r.dir });
    expect(res.code, res.stderr).toBe(3);
    expect(res.json).toMatchObject({ status: 'failed', reason: 'refuter_failed' });
    expect(res.stderr).toMatch(/failed \(refuter_failed\)/);
  });
});

describe('the ledger URL (point 20)', () => {
  let r: ReviewRepo;
  beforeAll(async () => {
    r = await repoWith({ reviewer: [{ reply: pass }] });
  });
  it.each([
    ['sqlite:', /"sqlite:" names no file/],
    ['sqlite:/', /"sqlite:\/" names a directory/],
    ['sqlite:no-such-dir/sub/ledger.db', /directory \S+no-such-dir\/sub does not exist/],
  ])('--store %s is a usage error that creates nothing', async (url, pattern) => {
    const res = await runCli(['status', '--store', url], { cwd: r.dir });
    expect(oneLine(res, 2)).toMatch(pattern);
    expect(existsSync(join(r.dir, 'no-such-dir'))).toBe(false);
  });
  it('the default .revloop/ directory is still created', async () => {
    const res = await runCli(['status', '--store', 'sqlite:.revloop/other.db'], { cwd: r.dir });
    expect(res.code, res.stderr).toBe(0);
  });
});

describe('config messages (point 20)', () => {
  it('a YAML error names its line and column', async () => {
    const r = await repoWith({}, { config: 'reviewers: [ { name: x\n  : :\n' });
    const res = await runCli(['review', '--head', 'topic'], { cwd: r.dir });
    expect(oneLine(res, 2)).toMatch(/revloop\.config\.yaml: invalid YAML at line 2, column 3: /);
  });
  it('criteria naming a directory says it is a directory', async () => {
    const r = await repoWith(
      {},
      { config: (a) => ({ ...baseConfig(a), criteria: 'docs' }), files: { 'docs/REVIEW.md': '# rules\n' } },
    );
    const res = await runCli(['review', '--head', 'topic'], { cwd: r.dir });
    expect(oneLine(res, 2)).toMatch(/criteria: "docs" is a directory, not a file/);
  });
});

describe('a new push mid-run (point 20)', () => {
  it('says a new push moved the head and how to review the new revision', async () => {
    const r = await repoWith({ reviewer: [{ reply: pass, actions: ['pushMain'] }] });
    const res = await runCli(['review', '--head', 'topic'], { cwd: r.dir });
    const line = oneLine(res, 3);
    expect(line).toMatch(/aborted \(superseded\)/);
    expect(line).toMatch(/a new push moved the head: review the new revision with: .* review --head topic/);
  });
});

describe('an interrupted review (point 20)', () => {
  it('a second Ctrl-C exits 130 with the resume hint, and status says nothing runs the run', async () => {
    const r = await repoWith({ reviewer: [{ sleepMs: 120_000, reply: pass }] });
    const child = spawn(process.execPath, [CLI, 'review', '--head', 'topic'], { cwd: r.dir, env: testEnv() });
    let stderr = '';
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
    // Once the reviewer runs (its call counted), the run is admitted and driven.
    while ((r.counts().reviewer ?? 0) < 1) await new Promise((d) => setTimeout(d, 50));
    // Signals sent together coalesce into one: keep pressing Ctrl-C until it exits.
    let done = false;
    void exited.then(() => {
      done = true;
    });
    while (!done) {
      child.kill('SIGINT');
      await new Promise((d) => setTimeout(d, 200));
    }
    expect(await exited, stderr).toBe(130);
    const runId = /resume it with: .* resume (\S+)/.exec(stderr)?.[1];
    expect(runId, stderr).toBeDefined();
    const one = await runCli(['status', runId ?? ''], { cwd: r.dir });
    expect(one.stdout).toMatch(/no live owner: process \d+ on \S+ exited; resume it with: .* resume /);
    const list = await runCli(['status'], { cwd: r.dir });
    expect(list.stdout).toMatch(/running .*no live owner/);
    expect(list.stdout).toContain(`run ${runId} has no live owner; resume it with:`);
    const j = await runCli(['status', '--json'], { cwd: r.dir });
    expect((j.json as { runs: { ownerGone: boolean }[] }).runs[0]?.ownerGone).toBe(true);
  });
});

describe('a read-only ledger (point 20)', () => {
  it('status, export and replay read it; review says it is read-only', async (t) => {
    const r = await repoWith({ reviewer: [{ reply: pass }] });
    const why = tryMount(join(r.dir, '.revloop'), '8m');
    if (why) t.skip(`cannot mount a tmpfs here: ${why}`);
    const first = await runCli(['review', '--head', 'topic', '--json'], { cwd: r.dir });
    expect(first.code, first.stderr).toBe(0);
    const runId = String(first.json?.runId);
    execFileSync('mount', ['-o', 'remount,ro', join(r.dir, '.revloop')]);
    for (const args of [
      ['status'],
      ['status', runId],
      ['export', runId, '--format', 'rounds'],
      ['replay', runId],
    ]) {
      const res = await runCli(args, { cwd: r.dir });
      expect(res.code, `${args.join(' ')}: ${res.stderr}`).toBe(0);
    }
    r.repo.git(['commit', '--allow-empty', '-q', '-m', 'another revision']);
    const again = await runCli(['review', '--head', 'topic'], { cwd: r.dir });
    expect(oneLine(again, 5)).toMatch(/read-only/);
  });
});

describe('a ledger that fills mid-run (point 20)', () => {
  it('names the admitted run and the resume command', async (t) => {
    // A reply far larger than the room left: admission fits, the verdict does not.
    const big = raceFinding({
      failureScenario: `two concurrent deposits ${'lose an update '.repeat(200_000)}`,
    });
    const r = await repoWith({ reviewer: [{ reply: findings(big) }] });
    const why = tryMount(join(r.dir, '.revloop'), '1m');
    if (why) t.skip(`cannot mount a tmpfs here: ${why}`);
    const res = await runCli(['review', '--head', 'topic'], { cwd: r.dir });
    const line = oneLine(res, 5);
    expect(line).toMatch(
      /is full \(no space left\): its last write was rolled back; run (\S+) did not finish; resume it with: .* resume \1$/,
    );
  });
});

describe('verify and history (point 20)', () => {
  it('a record from another repository is a mismatch, exit 3, not "fetch full history"', async () => {
    const a = await repoWith({ reviewer: [{ reply: pass }] });
    const res = await runCli(['review', '--head', 'topic', '--json'], { cwd: a.dir });
    expect(res.code, res.stderr).toBe(0);
    const b = await repoWith({}, { files: { 'other.txt': 'another repository\n' } });
    const v = await runCli(['verify', String(res.json?.record)], { cwd: b.dir });
    expect(v.code, v.stderr + v.stdout).toBe(3);
    expect(v.stderr + v.stdout).toMatch(
      /subject_mismatch.*commits \(base \w+, head \w+\) are not in this repository/,
    );
    expect(v.stderr + v.stdout).not.toMatch(/fetch full history, or pass --key/);
  });

  it('a shallow clone without the merge base says it is shallow and how to deepen it', async () => {
    const r = await repoWith({ reviewer: [{ reply: pass }] });
    r.repo.git(['checkout', '-q', 'main']);
    r.repo.write('more.txt', 'more history on main\n');
    r.repo.commit('main moves on');
    r.repo.git(['checkout', '-q', 'topic']);
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'revloop-shallow-')));
    dirs.push(dir);
    execFileSync(
      'git',
      ['clone', '-q', '--depth', '1', '--no-single-branch', `file://${r.dir}`, join(dir, 'c')],
      { env: TEST_GIT_ENV },
    );
    const res = await runCli(['review', '--base', 'origin/main', '--head', 'origin/topic'], {
      cwd: join(dir, 'c'),
    });
    expect(oneLine(res, 2)).toMatch(/shallow clone.*git fetch --unshallow/);
  });
});
