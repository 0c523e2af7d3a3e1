import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  createGit,
  FixerHistoryError,
  RefMovedError,
  WorktreeConflictError,
  WorktreeMovedError,
} from '../../src/git/index.js';
import { createRunner } from '../../src/git/run.js';
import { worktreeOps } from '../../src/git/worktree.js';
import { headOf, makeRepo, TEST_GIT_ENV, type TestRepo } from '../helpers/git-repo.js';

const git = createGit();
let repo: TestRepo;
let scratch: string;
let base: string;
let wt: string;

/** git inside the worktree, as a fixer would run it. */
const inWt = (args: string[]): string =>
  execFileSync('git', args, { cwd: wt, env: TEST_GIT_ENV, encoding: 'utf8' }).trim();

beforeAll(async () => {
  repo = await makeRepo();
  scratch = mkdtempSync(join(tmpdir(), 'revloop-wt-'));
  repo.write('a.txt', 'a\n');
  repo.write('.gitignore', 'build/\n');
  base = repo.commit('base');
});
afterAll(async () => {
  await repo.cleanup();
  rmSync(scratch, { recursive: true, force: true });
});

let n = 0;
beforeEach(async () => {
  wt = join(scratch, `wt-${n++}`);
  await git.addWorktree(repo.dir, wt, base);
});

describe('worktrees', () => {
  it.each([
    [
      "another checkout's removal took $GIT_DIR/worktrees",
      "could not create directory of '.git/worktrees/x'",
    ],
    [
      "a prune deleted the add's own entry before it was marked",
      "could not open '.git/worktrees/x/gitdir' for writing",
    ],
  ])('tries `worktree add` again when %s from under it', async (_why, lostWith) => {
    // The race itself cannot be forced: the first `worktree add` answers as git does when it
    // loses it; the rest is real git.
    const real = createRunner();
    let lost = 0;
    const racing = {
      ...real,
      exec: async (dir: string, args: readonly string[], o?: Parameters<typeof real.exec>[2]) => {
        if (args.includes('add') && lost++ === 0)
          return {
            code: 128,
            stdout: Buffer.alloc(0),
            stderr: `fatal: ${lostWith}: No such file or directory\n`,
          };
        return real.exec(dir, args, o);
      },
    };
    const target = join(scratch, `raced-${n++}`);
    await worktreeOps(racing, { name: 't', email: 't@example.com' }).addWorktree(repo.dir, target, base);
    expect(lost).toBe(2);
    expect(readFileSync(join(target, 'a.txt'), 'utf8')).toBe('a\n');
    await git.removeWorktree(repo.dir, target);
  });

  it("removing a checkout whose directory is gone drops its registration only: others', prunable or not, stay", async () => {
    const gone = join(scratch, `gone-${n++}`);
    const other = join(scratch, `other-gone-${n++}`);
    await git.addWorktree(repo.dir, gone, base);
    await git.addWorktree(repo.dir, other, base);
    rmSync(gone, { recursive: true, force: true });
    // `other` is what `git worktree prune` would delete: registered, its directory missing. So is
    // the entry of another lane's `add` in the instant before git marks it.
    rmSync(other, { recursive: true, force: true });
    await git.removeWorktree(repo.dir, gone);
    // Idempotent on a path neither present nor registered (the case that used to prune).
    await git.removeWorktree(repo.dir, gone);
    const listed = repo.git(['worktree', 'list', '--porcelain']);
    expect(listed).not.toContain(`worktree ${gone}\n`);
    expect(listed).toContain(`worktree ${other}\n`);
    await git.removeWorktree(repo.dir, other);
    expect(repo.git(['worktree', 'list', '--porcelain'])).not.toContain(`worktree ${other}\n`);
  });

  it("reads status without writing the index: the user's own git never meets revloop's index.lock", async () => {
    const index = repo.git(['rev-parse', '--git-path', 'index']);
    const indexPath = index.startsWith('/') ? index : join(repo.dir, index);
    // A tracked file rewritten with the same content, its stat data older than the index:
    // a plain `git status` refreshes the index and writes it back.
    const { utimesSync, statSync } = await import('node:fs');
    writeFileSync(join(repo.dir, 'a.txt'), 'a\n');
    const later = new Date(Date.now() + 5_000);
    utimesSync(join(repo.dir, 'a.txt'), later, later);
    const before = statSync(indexPath);
    expect(await git.status(repo.dir)).toEqual([]);
    const after = statSync(indexPath);
    expect([after.ino, after.mtimeMs]).toEqual([before.ino, before.mtimeMs]);
    // The control: git's own status does rewrite it here.
    repo.git(['status', '--porcelain']);
    expect(statSync(indexPath).mtimeMs).not.toBe(before.mtimeMs);
  });

  it('adds a detached worktree at the sha and removes it', async () => {
    expect(headOf(wt)).toBe(base);
    expect(inWt(['rev-parse', '--abbrev-ref', 'HEAD'])).toBe('HEAD'); // detached
    expect(readFileSync(join(wt, 'a.txt'), 'utf8')).toBe('a\n');
    writeFileSync(join(wt, 'dirty.txt'), 'x');
    await git.removeWorktree(repo.dir, wt);
    expect(existsSync(wt)).toBe(false);
    expect(repo.git(['worktree', 'list'])).not.toContain(wt);
    // Idempotent.
    await git.removeWorktree(repo.dir, wt);
  }, 60_000);

  it('reports status, commits every edit on the parent, and does nothing when clean', async () => {
    expect(await git.status(wt)).toEqual([]);
    expect(await git.commitAll(wt, base, 'nothing')).toBeNull();
    writeFileSync(join(wt, 'a.txt'), 'A\n');
    writeFileSync(join(wt, 'new file.txt'), 'n\n');
    rmSync(join(wt, '.gitignore'));
    const st = await git.status(wt);
    expect(st).toEqual(
      expect.arrayContaining([
        { path: 'a.txt', code: ' M', conflict: false },
        { path: 'new file.txt', code: '??', conflict: false },
        { path: '.gitignore', code: ' D', conflict: false },
      ]),
    );
    expect(st).toHaveLength(3);
    const sha = await git.commitAll(wt, base, 'revloop: fix round 1\n\nbody');
    expect(sha).toMatch(/^[0-9a-f]{40}$/);
    expect(headOf(wt)).toBe(sha);
    expect(await git.status(wt)).toEqual([]);
    expect(inWt(['log', '-1', '--format=%P|%an <%ae>|%cn|%B', sha as string])).toBe(
      `${base}|revloop <revloop@localhost>|revloop|revloop: fix round 1\n\nbody`,
    );
    expect(inWt(['diff', '--name-status', base, sha as string]).split('\n')).toEqual(
      ['D\t.gitignore', 'M\ta.txt', 'A\tnew file.txt'].sort((x, y) => x.slice(2).localeCompare(y.slice(2))),
    );
    // The repository's branch did not move.
    expect(repo.git(['rev-parse', 'main'])).toBe(base);
  });

  describe('commits the fixer made on its own', () => {
    /** The commit's parents, author, committer and message, and the files it changed from `from`. */
    const shape = (sha: string, from: string) => ({
      meta: inWt(['log', '-1', '--format=%P|%an <%ae>|%cn <%ce>|%B|%G?', sha]),
      files: inWt(['diff', '--name-only', from, sha]).split('\n'),
    });
    const ours = (parent: string) =>
      `${parent}|revloop <revloop@localhost>|revloop <revloop@localhost>|ours|N`;

    it('takes one commit and the edits left on top of it as the edit, committed as ours', async () => {
      writeFileSync(join(wt, 'a.txt'), 'fixer\n');
      inWt(['-c', 'user.name=agent', '-c', 'user.email=agent@x', 'commit', '-qam', 'agent: fix']);
      writeFileSync(join(wt, 'later.txt'), 'uncommitted\n');
      const sha = (await git.commitAll(wt, base, 'ours')) as string;
      expect(shape(sha, base)).toEqual({ meta: ours(base), files: ['a.txt', 'later.txt'] });
      expect(headOf(wt)).toBe(sha);
      expect(await git.status(wt)).toEqual([]);
    });

    it('takes two commits as one edit, and leaves a branch the fixer committed on where it was', async () => {
      inWt(['checkout', '-q', '-b', `agent-${n}`]);
      writeFileSync(join(wt, 'a.txt'), 'one\n');
      inWt(['commit', '-qam', 'first']);
      writeFileSync(join(wt, 'b.txt'), 'two\n');
      inWt(['add', 'b.txt']);
      inWt(['commit', '-qm', 'second']);
      const tip = inWt(['rev-parse', 'HEAD']);
      const sha = (await git.commitAll(wt, base, 'ours')) as string;
      expect(shape(sha, base)).toEqual({ meta: ours(base), files: ['a.txt', 'b.txt'] });
      expect(inWt(['rev-parse', '--abbrev-ref', 'HEAD'])).toBe('HEAD');
      expect(repo.git(['rev-parse', `agent-${n}`])).toBe(tip);
    });

    it('commits nothing when the commits undo each other', async () => {
      writeFileSync(join(wt, 'a.txt'), 'one\n');
      inWt(['commit', '-qam', 'edit']);
      writeFileSync(join(wt, 'a.txt'), 'a\n');
      inWt(['commit', '-qam', 'undo']);
      expect(await git.commitAll(wt, base, 'ours')).toBeNull();
      expect(headOf(wt)).toBe(base);
    });

    it('refuses an amend of the revision: HEAD is no descendant of it, and nothing moves', async () => {
      writeFileSync(join(wt, 'a.txt'), 'amended\n');
      inWt(['commit', '-q', '--amend', '-am', 'amended']);
      const amended = inWt(['rev-parse', 'HEAD']);
      const err = await git.commitAll(wt, base, 'ours').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(FixerHistoryError);
      expect(err).toMatchObject({ code: 'fixer_history', revision: base, actual: amended });
      expect((err as Error).message).toMatch(/not a descendant of the revision .*amend/);
      expect(headOf(wt)).toBe(amended);
    });

    it('refuses a reset to an older commit', async () => {
      writeFileSync(join(wt, 'a.txt'), 'round one\n');
      const first = (await git.commitAll(wt, base, 'round 1')) as string;
      inWt(['reset', '-q', '--hard', base]);
      await expect(git.commitAll(wt, first, 'ours')).rejects.toMatchObject({
        code: 'fixer_history',
        actual: base,
      });
    });

    it('refuses a merge among them: it brings in history besides the edit', async () => {
      repo.git(['checkout', '--quiet', '-b', `other-${n}`]);
      repo.write(`other-${n}.txt`, 'o\n');
      const other = repo.commit('other');
      repo.git(['checkout', '--quiet', 'main']);
      inWt(['merge', '-q', '--no-ff', '--no-edit', other]);
      await expect(git.commitAll(wt, base, 'ours')).rejects.toThrow(/is a merge/);
    });
  });

  it('throws WorktreeConflictError on unmerged paths', async () => {
    repo.git(['checkout', '--quiet', '-b', 'other']);
    repo.write('a.txt', 'other\n');
    const other = repo.commit('other');
    repo.git(['checkout', '--quiet', 'main']);
    writeFileSync(join(wt, 'a.txt'), 'mine\n');
    inWt(['commit', '-qam', 'mine']);
    const mine = inWt(['rev-parse', 'HEAD']);
    expect(() => inWt(['merge', '--no-edit', other])).toThrow();
    expect(await git.status(wt)).toEqual([{ path: 'a.txt', code: 'UU', conflict: true }]);
    const err = await git.commitAll(wt, mine, 'x').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WorktreeConflictError);
    // One path, though the index holds three stages of it.
    expect(err).toMatchObject({ paths: ['a.txt'] });
  });

  it('commits the same way under a hostile user config: signing, hooks, templates, cleanup, auto gc', async () => {
    const cfg = join(scratch, `hostile-${n}.gitconfig`);
    const hooks = join(scratch, `hooks-${n}`);
    execFileSync('mkdir', ['-p', hooks]);
    for (const h of ['pre-commit', 'commit-msg', 'prepare-commit-msg', 'post-commit'])
      writeFileSync(join(hooks, h), '#!/bin/sh\nexit 1\n', { mode: 0o755 });
    writeFileSync(join(scratch, `template-${n}`), 'TEMPLATE\n');
    writeFileSync(
      cfg,
      [
        '[commit]\n\tgpgSign = true\n\tcleanup = strip\n\tverbose = true',
        `\ttemplate = ${join(scratch, `template-${n}`)}`,
        '[gpg]\n\tprogram = false',
        `[core]\n\thooksPath = ${hooks}`,
        '[user]\n\tuseConfigOnly = true',
        '[gc]\n\tauto = 1',
        '',
      ].join('\n'),
    );
    const hostile = createGit({ env: { GIT_CONFIG_GLOBAL: cfg } });
    writeFileSync(join(wt, 'a.txt'), 'hostile\n');
    const sha = (await hostile.commitAll(wt, base, '# not a comment\n\nkept   ')) as string;
    expect(inWt(['rev-list', '--parents', '-n', '1', sha]).split(' ')).toEqual([sha, base]);
    expect(inWt(['log', '-1', '--format=%an <%ae>|%G?', sha])).toBe('revloop <revloop@localhost>|N');
    expect(execFileSync('git', ['cat-file', 'commit', sha], { cwd: wt, encoding: 'utf8' })).toMatch(
      /\n\n# not a comment\n\nkept {3}$/,
    );
    expect(headOf(wt)).toBe(sha);
  });

  it('refuses a commit whose parent is not the expected one (HEAD moved under git commit)', async () => {
    // A git that moves the worktree's HEAD just before `git commit` runs: a racing fixer.
    repo.git(['checkout', '--quiet', '-b', `racer-${n}`]);
    repo.write('racer.txt', 'r\n');
    const racer = repo.commit('racer');
    repo.git(['checkout', '--quiet', 'main']);
    const wrapper = join(scratch, `git-racing-${n}`);
    writeFileSync(
      wrapper,
      `#!/bin/sh\ncase " $* " in *" commit "*) git -C "$2" update-ref --no-deref HEAD ${racer} ;; esac\nexec git "$@"\n`,
      { mode: 0o755 },
    );
    writeFileSync(join(wt, 'a.txt'), 'raced\n');
    const err = await createGit({ gitPath: wrapper })
      .commitAll(wt, base, 'x')
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WorktreeMovedError);
    expect(err).toMatchObject({ expected: base, actual: racer });
  });

  it('finds conflicts a fixer makes after a commit of ours (the index it left was replaced)', async () => {
    repo.git(['checkout', '--quiet', '-b', `theirs-${n}`]);
    repo.write('a.txt', 'theirs\n');
    const theirs = repo.commit('theirs');
    repo.git(['checkout', '--quiet', 'main']);
    writeFileSync(join(wt, 'a.txt'), 'ours\n');
    const ours = (await git.commitAll(wt, base, 'ours')) as string;
    // A second fix round: the fixer merges and leaves the conflict.
    expect(() => inWt(['merge', '--no-edit', theirs])).toThrow();
    await expect(git.commitAll(wt, ours, 'x')).rejects.toMatchObject({
      code: 'worktree_conflict',
      paths: ['a.txt'],
    });
  });

  it('refuses to move HEAD when it moved under a commit made with a merge in progress', async () => {
    // With a merge half done the commit is built with commit-tree and HEAD moved by a
    // compare-and-swap: a racing fixer moves HEAD just before commit-tree runs.
    repo.git(['checkout', '--quiet', '-b', `side-race-${n}`]);
    repo.write(`side-race-${n}.txt`, 's\n');
    const side = repo.commit('side');
    repo.git(['checkout', '--quiet', 'main']);
    inWt(['merge', '--no-commit', '--no-ff', side]);
    writeFileSync(join(wt, 'a.txt'), 'raced\n');
    const wrapper = join(scratch, `git-racing-tree-${n}`);
    writeFileSync(
      wrapper,
      `#!/bin/sh\ncase " $* " in *" commit-tree "*) git -C "$2" update-ref --no-deref HEAD ${side} ;; esac\nexec git "$@"\n`,
      { mode: 0o755 },
    );
    const err = await createGit({ gitPath: wrapper })
      .commitAll(wt, base, 'x')
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WorktreeMovedError);
    expect(err).toMatchObject({ expected: base, actual: side });
  });

  it('commits with exactly one parent even when the fixer left a merge in progress', async () => {
    repo.git(['checkout', '--quiet', '-b', `side-${n}`]);
    repo.write(`side-${n}.txt`, 's\n');
    const side = repo.commit('side');
    repo.git(['checkout', '--quiet', 'main']);
    inWt(['merge', '--no-commit', '--no-ff', side]);
    writeFileSync(join(wt, 'a.txt'), 'fixed\n');
    const sha = (await git.commitAll(wt, base, 'fix')) as string;
    expect(inWt(['rev-list', '--parents', '-n', '1', sha]).split(' ')).toEqual([sha, base]);
  });

  it('resets to a sha, dropping edits, untracked and ignored files, without moving a branch', async () => {
    writeFileSync(join(wt, 'a.txt'), 'edited\n');
    writeFileSync(join(wt, 'untracked.txt'), 'u');
    execFileSync('mkdir', ['-p', join(wt, 'build')]);
    writeFileSync(join(wt, 'build', 'out.o'), 'o');
    // The fixer checked out a branch and committed to it.
    inWt(['checkout', '-q', '-b', `fixer-${n}`]);
    inWt(['commit', '-qam', 'on a branch']);
    const branchTip = inWt(['rev-parse', 'HEAD']);
    await git.resetWorktree(wt, base);
    expect(headOf(wt)).toBe(base);
    expect(await git.status(wt)).toEqual([]);
    expect(existsSync(join(wt, 'untracked.txt'))).toBe(false);
    expect(existsSync(join(wt, 'build'))).toBe(false);
    expect(readFileSync(join(wt, 'a.txt'), 'utf8')).toBe('a\n');
    expect(repo.git(['rev-parse', `fixer-${n}`])).toBe(branchTip);
  });
});

describe('updateRef', () => {
  it('creates, moves with compare-and-swap, and refuses a stale expectation', async () => {
    writeFileSync(join(wt, 'a.txt'), 'next\n');
    const next = (await git.commitAll(wt, base, 'next')) as string;
    const ref = 'refs/revloop/runs/r1';
    await git.updateRef(repo.dir, ref, base, '0'.repeat(40));
    expect(repo.git(['rev-parse', ref])).toBe(base);
    await git.updateRef(repo.dir, ref, next, base);
    expect(repo.git(['rev-parse', ref])).toBe(next);
    const err = await git.updateRef(repo.dir, ref, base, base).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RefMovedError);
    expect(err).toMatchObject({ code: 'ref_moved', ref, expected: base, actual: next });
    await expect(git.updateRef(repo.dir, ref, base, '0'.repeat(40))).rejects.toBeInstanceOf(RefMovedError);
    expect(repo.git(['rev-parse', ref])).toBe(next);
    // Without an expectation it just moves.
    await git.updateRef(repo.dir, ref, base);
    expect(repo.git(['rev-parse', ref])).toBe(base);
  });
});
