/**
 * Issue 17, point 1: the worktree pool, on real repositories in temp dirs
 * with real subprocess agents. A run's checkout is a lane kept across runs
 * and moved between revisions (a file no change touches keeps its inode); a
 * lane left dirty is restored, and one left with hidden index flags, locked
 * or deleted is rebuilt, never reviewed as it is; a lane taken over after a
 * crash is renamed to the taker's token so an orphaned agent of the dead
 * owner cannot write into it; the user's tree is never touched.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { poolDir } from '../../src/loop/checkout/pool/location.js';
import { resumeRun } from '../../src/loop/operations.js';
import {
  dyingAt,
  inProcess,
  makeReviewRepo,
  type ReviewRepo,
  ROOT,
  raceFinding,
  review,
  testEnv,
} from '../loop/helpers.js';

const AGENT = join(ROOT, 'test/fixtures/pool/agent.mjs');
const scratch = mkdtempSync(join(tmpdir(), 'revloop-pool-test-'));
const repos: ReviewRepo[] = [];
afterAll(async () => {
  for (const r of repos) await r.cleanup();
  rmSync(scratch, { recursive: true, force: true });
});

interface Seen {
  role: string;
  repo: string;
  cwd: string;
  keepIno: number;
  keep: string;
  other: string;
  calc: string;
  entries: string[];
  status: string;
}

let logs = 0;
const newLog = () => join(scratch, `log-${++logs}.jsonl`);
const readLog = (p: string): Seen[] =>
  existsSync(p)
    ? readFileSync(p, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Seen)
    : [];

/** What the stand-in agent reads, given on purpose. */
const POOL_AGENT_ENV = ['POOL_LOG', 'POOL_ORPHAN', 'POOL_FINDING'];

async function poolRepo(extra: Record<string, unknown> = {}): Promise<ReviewRepo> {
  const r = await makeReviewRepo({
    config: {
      criteria: 'REVIEW.md',
      reviewers: [{ name: 'r', command: [process.execPath, AGENT], env: POOL_AGENT_ENV }],
      ...extra,
    },
    files: { 'lib/keep.txt': 'kept\n', 'lib/other.txt': 'other\n' },
  });
  repos.push(r);
  return r;
}

/** A new change on its own branch from main (a new revision: admission would answer a known one with its run). */
function newChange(r: ReviewRepo, branch: string): string {
  r.repo.git(['checkout', '-q', '-b', branch, 'main']);
  r.repo.write('src/calc.js', `// ${branch}\nexport const answer = 42;\n`);
  return r.repo.commit(branch);
}

/** Reviews `branch` in this process and checks that the user's tree was left exactly as it was. */
async function reviewIn(r: ReviewRepo, branch: string, env: NodeJS.ProcessEnv) {
  const headBefore = r.repo.git(['rev-parse', 'HEAD']);
  const p = await inProcess(r.dir, { env: testEnv(env) });
  try {
    const res = await review(p, r.dir, { headRef: branch });
    expect(r.repo.git(['status', '--porcelain', '--untracked-files=all']), "the user's tree").toBe('');
    expect(r.repo.git(['rev-parse', 'HEAD']), "the user's HEAD").toBe(headBefore);
    return res;
  } finally {
    await p.close();
  }
}

const poolOf = (r: ReviewRepo) => poolDir(join(r.dir, '.git'), undefined, r.dir, testEnv());

describe('the worktree pool (issue 17, point 1)', { timeout: 300_000 }, () => {
  it('a lane is reused across runs: moved between revisions, not checked out again', async () => {
    const r = await poolRepo();
    const log = newLog();
    const first = await reviewIn(r, 'topic', { POOL_LOG: log });
    newChange(r, 'second');
    const second = await reviewIn(r, 'second', { POOL_LOG: log });
    expect([first.run.outcome, second.run.outcome]).toEqual(['clear', 'clear']);
    const [a, b] = readLog(log);
    if (!a || !b) throw new Error('the agent was not called twice');
    expect(a.repo).toBe(join(poolOf(r), `lane-0-${first.run.id}-1`));
    expect(b.repo).toBe(join(poolOf(r), `lane-0-${second.run.id}-1`));
    expect(a.cwd).toBe(a.repo);
    // Untouched by the change: the same file on disk, not written again.
    expect(b.keepIno).toBe(a.keepIno);
    expect(b.calc).toBe('// second\nexport const answer = 42;\n');
    expect(b.status).toBe('');
    expect(existsSync(a.repo), "the last holder's name is gone").toBe(false);
    expect(existsSync(b.repo), 'the lane stays for the next run').toBe(true);
    const listed = r.repo.git(['worktree', 'list', '--porcelain']);
    expect(listed).toContain(b.repo);
    expect(listed).not.toContain(a.repo);
  });

  it('a lane left dirty is restored; one with hidden index flags, locked or deleted is rebuilt', async () => {
    const r = await poolRepo();
    const log = newLog();
    await reviewIn(r, 'topic', { POOL_LOG: log });
    const lane = () => readLog(log).at(-1)?.repo ?? '';
    const git = (dir: string, args: string[]) => r.repo.git(['-C', dir, ...args]);

    // Dirty: an edit, an untracked file, an ignored file.
    r.repo.write(join(lane().slice(r.dir.length + 1), 'lib/other.txt'), 'edited\n');
    r.repo.write(join(lane().slice(r.dir.length + 1), 'junk.txt'), 'junk\n');
    r.repo.write(join(lane().slice(r.dir.length + 1), '.revloop/ignored.txt'), 'ignored\n');
    const inoBefore = readLog(log).at(-1)?.keepIno;
    // A rebuild deletes the lane's registration and makes a new one, so a mark left in it
    // proves which happened (an inode number may be reused by the rebuilt file, a mark cannot).
    const registration = (dir: string) => git(dir, ['rev-parse', '--absolute-git-dir']);
    const markRegistration = (dir: string) => writeFileSync(join(registration(dir), 'test-mark'), '');
    const isMarked = (dir: string) => existsSync(join(registration(dir), 'test-mark'));
    markRegistration(lane());
    newChange(r, 'dirty');
    await reviewIn(r, 'dirty', { POOL_LOG: log });
    let seen = readLog(log).at(-1) as Seen;
    expect(seen.other).toBe('other\n');
    expect(seen.entries).not.toContain('junk.txt');
    expect(seen.status).toBe('');
    expect(seen.keepIno, 'restored in place').toBe(inoBefore);
    expect(isMarked(seen.repo), 'restored, not rebuilt').toBe(true);

    // An edit git would not look at (assume-unchanged): the reset would keep it, so rebuilt.
    git(lane(), ['update-index', '--assume-unchanged', 'lib/keep.txt']);
    r.repo.write(join(lane().slice(r.dir.length + 1), 'lib/keep.txt'), 'hidden edit\n');
    markRegistration(lane());
    newChange(r, 'hidden');
    await reviewIn(r, 'hidden', { POOL_LOG: log });
    seen = readLog(log).at(-1) as Seen;
    expect(seen.keep).toBe('kept\n');
    expect(isMarked(seen.repo), 'rebuilt').toBe(false);
    expect(git(seen.repo, ['ls-files', '-v', 'lib/keep.txt'])).toBe('H lib/keep.txt');

    // Locked (`git worktree lock`): rebuilt, and the lock is gone with the old checkout.
    git(r.dir, ['worktree', 'lock', lane()]);
    markRegistration(lane());
    newChange(r, 'locked');
    await reviewIn(r, 'locked', { POOL_LOG: log });
    seen = readLog(log).at(-1) as Seen;
    expect(isMarked(seen.repo), 'rebuilt').toBe(false);
    expect(r.repo.git(['worktree', 'list', '--porcelain'])).not.toMatch(/^locked/m);

    // Deleted: made again.
    rmSync(lane(), { recursive: true, force: true });
    newChange(r, 'deleted');
    const res = await reviewIn(r, 'deleted', { POOL_LOG: log });
    seen = readLog(log).at(-1) as Seen;
    expect(res.run.outcome).toBe('clear');
    expect(seen.repo).toBe(join(poolOf(r), `lane-0-${res.run.id}-1`));
    expect(seen.status).toBe('');
    expect(r.repo.git(['worktree', 'list', '--porcelain']).match(/^worktree /gm)).toHaveLength(2);
  });

  it('a lane taken over after a crash carries the new token, and an orphan of the dead owner cannot write into it', async () => {
    const r = await poolRepo({ refuter: { command: [process.execPath, AGENT], env: POOL_AGENT_ENV } });
    const log = newLog();
    const orphan = mkdtempSync(join(scratch, 'orphan-'));
    const env = testEnv({ POOL_LOG: log, POOL_ORPHAN: orphan, POOL_FINDING: JSON.stringify(raceFinding()) });
    // The first owner's reviewer leaves an orphan behind; the owner dies before the refutation.
    const first = await inProcess(r.dir, { env, tweak: dyingAt('before:refute', 300) });
    await expect(review(first, r.dir)).rejects.toThrow('controller died');
    const [stuck] = await first.store.listRuns();
    await first.close();
    if (!stuck) throw new Error('no run');
    await new Promise((res) => setTimeout(res, 400));

    const second = await inProcess(r.dir, { env });
    try {
      const res = await resumeRun(second.deps, stuck.id);
      expect(res.run).toMatchObject({ status: 'completed', outcome: 'findings' });
    } finally {
      await second.close();
    }
    const [owner, taker] = readLog(log);
    if (!owner || !taker) throw new Error('the reviewer and the refuter were not both called');
    expect(owner.repo).toBe(join(poolOf(r), `lane-0-${stuck.id}-1`));
    expect(taker.repo).toBe(join(poolOf(r), `lane-0-${stuck.id}-2`));
    expect(taker.keepIno, 'the lane was reused, not checked out again').toBe(owner.keepIno);
    // The orphan wrote after the takeover (the taker's refuter let it go and waited for it).
    const report = JSON.parse(readFileSync(join(orphan, 'report.json'), 'utf8'));
    expect(report).toEqual({ relative: 'ENOENT', absolute: 'ENOENT', subdir: 'ENOENT' });
    expect(taker.entries.filter((e) => e.startsWith('orphan'))).toEqual([]);
    expect(taker.status).toBe('');
    expect(existsSync(owner.repo)).toBe(false);
  });
});
