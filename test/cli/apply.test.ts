/**
 * `review --apply` the way the README has a user run it (issue 15, point 13):
 * `git switch my-feature; revloop review --base main --apply && git push`.
 * A clear run with fixes fast-forwards the branch as `git merge --ff-only`
 * would, its checkout included; when it cannot (uncommitted edits, an
 * untracked file in the way, a detached HEAD, a branch that moved) the
 * command exits 7 with one line saying why, and nothing of the user's moves.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  BASE_FILE,
  baseConfig,
  type CliResult,
  ensureBuilt,
  FIXED_FILE,
  findings,
  HEAD_FILE,
  makeReviewRepo,
  pass,
  raceFinding,
  reposRemovedAfterAll,
  runCli,
} from '../loop/helpers.js';

const repos = reposRemovedAfterAll();
beforeAll(() => ensureBuilt(), 120_000);

/** A change on `topic` (checked out) whose first round has a blocker the fixer fixes; round 2 passes. */
async function fixingRepo(fixerWrites: Record<string, string> = { 'src/calc.js': FIXED_FILE }) {
  const r = await makeReviewRepo({ config: (a) => baseConfig(a, { fixer: a }) });
  repos.push(r);
  r.plan({
    reviewer: [{ round: 1, reply: findings(raceFinding()) }, { reply: pass }],
    fixer: [{ write: fixerWrites, reply: { disputed: [] } }],
  });
  return r;
}

const runHead = (res: CliResult) => {
  const rounds = (res.json as { rounds: { revision: string }[] }).rounds;
  return rounds[rounds.length - 1]?.revision as string;
};

function expectRefused(res: CliResult, pattern: RegExp) {
  expect(res.code, res.stderr).toBe(7);
  expect(res.json).toMatchObject({ status: 'completed', outcome: 'clear' });
  const lines = res.stderr.trim().split('\n');
  expect(lines, res.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^revloop: not applied: /);
  expect(lines[0]).toMatch(pattern);
}

describe('review --apply on the checked-out branch (the README flow)', () => {
  it('fast-forwards the branch, its index and its files; the tree is clean after', async () => {
    const r = await fixingRepo();
    const res = await runCli(['review', '--base', 'main', '--apply', '--json'], { cwd: r.dir });
    expect(res.code, res.stderr).toBe(0);
    const fixed = runHead(res);
    expect(fixed).not.toBe(r.head);
    expect(res.json?.applied).toMatch(/^applied: topic fast-forwarded/);
    expect(r.repo.git(['rev-parse', 'topic'])).toBe(fixed);
    expect(r.repo.git(['symbolic-ref', 'HEAD'])).toBe('refs/heads/topic');
    expect(readFileSync(join(r.dir, 'src/calc.js'), 'utf8')).toBe(FIXED_FILE);
    expect(r.repo.git(['status', '--porcelain', '--untracked-files=no'])).toBe('');
    // As `git merge --ff-only` leaves it: the reflog names the move.
    expect(r.repo.git(['reflog', '-1', '--format=%gs', 'topic'])).toMatch(/revloop: apply/);
  });

  it('uncommitted edits of a tracked file: exit 7, one line naming the file; nothing moves', async () => {
    const r = await fixingRepo();
    const mine = `${HEAD_FILE}// my own edit, not committed\n`;
    writeFileSync(join(r.dir, 'src/calc.js'), mine);
    const res = await runCli(['review', '--base', 'main', '--apply', '--json'], { cwd: r.dir });
    expectRefused(res, /uncommitted changes: src\/calc\.js.*git merge --ff-only [0-9a-f]{40}/);
    expect(r.repo.git(['rev-parse', 'topic'])).toBe(r.head);
    expect(readFileSync(join(r.dir, 'src/calc.js'), 'utf8')).toBe(mine);
  });

  it('an untracked file the fix would overwrite: exit 7, the file is kept', async () => {
    const r = await fixingRepo({ 'src/calc.js': FIXED_FILE, 'src/lock.js': 'export const lock = 1;\n' });
    writeFileSync(join(r.dir, 'src/lock.js'), 'mine\n');
    const res = await runCli(['review', '--base', 'main', '--apply', '--json'], { cwd: r.dir });
    expectRefused(res, /untracked files would be overwritten: src\/lock\.js/);
    expect(r.repo.git(['rev-parse', 'topic'])).toBe(r.head);
    expect(readFileSync(join(r.dir, 'src/lock.js'), 'utf8')).toBe('mine\n');
    expect(readFileSync(join(r.dir, 'src/calc.js'), 'utf8')).toBe(HEAD_FILE);
  });

  it('an untracked file elsewhere does not stop it', async () => {
    const r = await fixingRepo();
    writeFileSync(join(r.dir, 'notes.txt'), 'mine\n');
    const res = await runCli(['review', '--base', 'main', '--apply', '--json'], { cwd: r.dir });
    expect(res.code, res.stderr).toBe(0);
    expect(r.repo.git(['rev-parse', 'topic'])).toBe(runHead(res));
    expect(readFileSync(join(r.dir, 'notes.txt'), 'utf8')).toBe('mine\n');
  });

  it('a detached HEAD: exit 7, "not a branch"', async () => {
    const r = await fixingRepo();
    r.repo.git(['checkout', '-q', '--detach', 'topic']);
    const res = await runCli(['review', '--base', 'main', '--apply', '--json'], { cwd: r.dir });
    expectRefused(res, /not a branch/);
    expect(r.repo.git(['rev-parse', 'HEAD'])).toBe(r.head);
  });

  it('a run without fixes has nothing to apply and exits 0', async () => {
    const r = await makeReviewRepo({ config: (a) => baseConfig(a, { fixer: a }) });
    repos.push(r);
    r.plan({ reviewer: [{ reply: pass }] });
    const res = await runCli(['review', '--base', 'main', '--apply', '--json'], { cwd: r.dir });
    expect(res.code, res.stderr).toBe(0);
    expect(res.json?.applied).toMatch(/nothing to apply/);
  });
});

describe('review --apply on a branch that is not checked out here', () => {
  it('moves the branch only; the checkout (main) is untouched', async () => {
    const r = await fixingRepo();
    r.repo.git(['checkout', '-q', 'main']);
    const res = await runCli(['review', '--head', 'topic', '--apply', '--json'], { cwd: r.dir });
    expect(res.code, res.stderr).toBe(0);
    expect(r.repo.git(['rev-parse', 'topic'])).toBe(runHead(res));
    expect(r.repo.git(['symbolic-ref', 'HEAD'])).toBe('refs/heads/main');
    expect(readFileSync(join(r.dir, 'src/calc.js'), 'utf8')).toBe(BASE_FILE);
    expect(r.repo.git(['status', '--porcelain', '--untracked-files=no'])).toBe('');
  });

  it('checked out in a linked worktree: that worktree follows', async () => {
    const r = await fixingRepo();
    r.repo.git(['checkout', '-q', 'main']);
    const linked = `${r.dir}-linked`;
    r.repo.git(['worktree', 'add', '-q', linked, 'topic']);
    try {
      const res = await runCli(['review', '--head', 'topic', '--apply', '--json'], { cwd: r.dir });
      expect(res.code, res.stderr).toBe(0);
      expect(r.repo.git(['rev-parse', 'topic'])).toBe(runHead(res));
      expect(readFileSync(join(linked, 'src/calc.js'), 'utf8')).toBe(FIXED_FILE);
      expect(readFileSync(join(r.dir, 'src/calc.js'), 'utf8')).toBe(BASE_FILE);
    } finally {
      r.repo.git(['worktree', 'remove', '--force', linked]);
    }
  });
});
