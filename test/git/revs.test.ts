import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGit, NoMergeBaseError, NotARepositoryError, UnknownRefError } from '../../src/git/index.js';
import { resolveRevision } from '../../src/loop/admission.js';
import { makeRepo, type TestRepo } from '../helpers/git-repo.js';

const git = createGit();
let repo: TestRepo;
let first: string;
let second: string;
let topic: string;

beforeAll(async () => {
  repo = await makeRepo();
  repo.write('a.txt', 'one\n');
  first = repo.commit('first');
  repo.write('a.txt', 'one\ntwo\n');
  second = repo.commit('second');
  repo.git(['checkout', '--quiet', '-b', 'topic', first]);
  repo.write('b.txt', 'b\n');
  topic = repo.commit('topic');
  repo.git(['checkout', '--quiet', 'main']);
});
afterAll(() => repo.cleanup());

describe('root', () => {
  it('finds the top level from a subdirectory', async () => {
    mkdirSync(join(repo.dir, 'sub', 'deep'), { recursive: true });
    expect(await git.root(join(repo.dir, 'sub', 'deep'))).toBe(repo.dir);
  });

  it('throws NotARepositoryError outside a repository and for a missing dir', async () => {
    const outside = mkdtempSync(join(tmpdir(), 'revloop-not-repo-'));
    try {
      await expect(git.root(outside)).rejects.toBeInstanceOf(NotARepositoryError);
      await expect(git.root(outside)).rejects.toThrow(`not a git repository: ${outside}`);
      await expect(git.root(join(outside, 'missing'))).rejects.toMatchObject({ code: 'not_a_repository' });
      await expect(git.resolve(outside, 'HEAD')).rejects.toBeInstanceOf(NotARepositoryError);
      await expect(git.commitExists(outside, first)).rejects.toBeInstanceOf(NotARepositoryError);
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });
});

describe('environment', () => {
  it('ignores GIT_DIR and GIT_INDEX_FILE inherited from a git hook', async () => {
    const saved = { dir: process.env.GIT_DIR, index: process.env.GIT_INDEX_FILE };
    process.env.GIT_DIR = '/nonexistent/.git';
    process.env.GIT_INDEX_FILE = '/nonexistent/index';
    try {
      const hooked = createGit();
      expect(await hooked.resolve(repo.dir, 'main')).toBe(second);
      expect(await hooked.status(repo.dir)).toEqual([]);
    } finally {
      for (const [k, v] of [
        ['GIT_DIR', saved.dir],
        ['GIT_INDEX_FILE', saved.index],
      ] as const) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
  });
});

describe('resolve', () => {
  it('resolves branches, HEAD, abbreviations and ancestry to full shas', async () => {
    expect(await git.resolve(repo.dir, 'main')).toBe(second);
    expect(await git.resolve(repo.dir, 'HEAD~1')).toBe(first);
    expect(await git.resolve(repo.dir, topic.slice(0, 10))).toBe(topic);
    expect(await git.resolve(repo.dir, 'topic')).toBe(topic);
  });

  it('throws UnknownRefError naming the ref and the repo', async () => {
    const err = await git.resolve(repo.dir, 'foo').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnknownRefError);
    expect(err).toMatchObject({ code: 'unknown_ref', message: `unknown ref "foo" in ${repo.dir}` });
  });

  it('refuses a ref that git would read as an option', async () => {
    await expect(git.resolve(repo.dir, '--output=/tmp/x')).rejects.toBeInstanceOf(UnknownRefError);
    await expect(git.diffDigest(repo.dir, '--output=/tmp/x', second)).rejects.toBeInstanceOf(UnknownRefError);
  });

  it('resolves a tree-ish that is not a commit as unknown', async () => {
    const tree = repo.git(['rev-parse', 'HEAD^{tree}']);
    await expect(git.resolve(repo.dir, tree)).rejects.toBeInstanceOf(UnknownRefError);
  });
});

describe('commitExists and mergeBase', () => {
  it('tells commits from missing objects', async () => {
    expect(await git.commitExists(repo.dir, second)).toBe(true);
    expect(await git.commitExists(repo.dir, 'f'.repeat(40))).toBe(false);
    expect(await git.commitExists(repo.dir, '-x')).toBe(false);
  });

  it('finds the merge base of diverged branches', async () => {
    expect(await git.mergeBase(repo.dir, 'main', 'topic')).toBe(first);
    expect(await git.mergeBase(repo.dir, second, first)).toBe(first);
  });

  it('names the unknown side, and unrelated histories', async () => {
    await expect(git.mergeBase(repo.dir, 'main', 'nope')).rejects.toMatchObject({ ref: 'nope' });
    repo.git(['checkout', '--quiet', '--orphan', 'lonely']);
    const lonely = repo.commit('unrelated');
    repo.git(['checkout', '--quiet', '--force', 'main']);
    await expect(git.mergeBase(repo.dir, second, lonely)).rejects.toBeInstanceOf(NoMergeBaseError);
  });
});

describe('readFile', () => {
  it('returns bytes at a commit, null when absent', async () => {
    expect((await git.readFile(repo.dir, first, 'a.txt'))?.toString()).toBe('one\n');
    expect((await git.readFile(repo.dir, second, 'a.txt'))?.toString()).toBe('one\ntwo\n');
    expect(await git.readFile(repo.dir, first, 'b.txt')).toBeNull();
    expect(await git.readFile(repo.dir, first, 'sub')).toBeNull();
  });

  it('throws UnknownRefError for a missing commit', async () => {
    await expect(git.readFile(repo.dir, 'e'.repeat(40), 'a.txt')).rejects.toBeInstanceOf(UnknownRefError);
  });

  it('reads binary content unchanged', async () => {
    const bytes = Buffer.from([0, 1, 2, 255, 254, 0, 10]);
    repo.write('bin.dat', bytes);
    const sha = repo.commit('binary');
    expect(Buffer.compare((await git.readFile(repo.dir, sha, 'bin.dat')) as Buffer, bytes)).toBe(0);
  });
});

describe('fullRefName', () => {
  it('names the ref a short name stands for, null for an expression or a commit id', async () => {
    expect(await git.fullRefName(repo.dir, 'topic')).toBe('refs/heads/topic');
    expect(await git.fullRefName(repo.dir, 'refs/heads/topic')).toBe('refs/heads/topic');
    repo.git(['tag', 'v-full', first]);
    expect(await git.fullRefName(repo.dir, 'v-full')).toBe('refs/tags/v-full');
    expect(await git.fullRefName(repo.dir, 'topic~1')).toBeNull();
    expect(await git.fullRefName(repo.dir, topic)).toBeNull();
    expect(await git.fullRefName(repo.dir, 'nope')).toBeNull();
  });
});

describe('refHolds', () => {
  it('is true while the ref resolves to the commit, whether loose or packed', async () => {
    repo.git(['branch', 'holds', first]);
    expect(await git.refHolds(repo.dir, 'refs/heads/holds', first)).toBe(true);
    expect(await git.refHolds(repo.dir, 'refs/heads/holds', second)).toBe(false);
    repo.git(['pack-refs', '--all']);
    expect(await git.refHolds(repo.dir, 'refs/heads/holds', first)).toBe(true);
    repo.git(['branch', '--force', 'holds', second]);
    expect(await git.refHolds(repo.dir, 'refs/heads/holds', first)).toBe(false);
    expect(await git.refHolds(repo.dir, 'refs/heads/holds', second)).toBe(true);
    repo.git(['branch', '-D', 'holds']);
    expect(await git.refHolds(repo.dir, 'refs/heads/holds', second)).toBe(false);
  });

  it('reads the shared ref from a linked worktree, and never a ref outside refs/', async () => {
    const wt = mkdtempSync(join(tmpdir(), 'revloop-refholds-wt-'));
    rmSync(wt, { recursive: true });
    repo.git(['worktree', 'add', '--quiet', '--detach', wt, first]);
    try {
      expect(await git.refHolds(wt, 'refs/heads/topic', topic)).toBe(true);
      expect(await git.refHolds(wt, 'refs/heads/topic', first)).toBe(false);
      // A name git would read as an option, or a path out of the git dir, is refused.
      await expect(git.refHolds(repo.dir, '--output=x', first)).rejects.toBeInstanceOf(UnknownRefError);
      expect(await git.refHolds(repo.dir, 'refs/heads/../../HEAD', first)).toBe(false);
    } finally {
      repo.git(['worktree', 'remove', '--force', wt]);
    }
  });
});

describe('readFile at a commit id', () => {
  it('asks git once per file and commit id; a ref name is asked every time', async () => {
    // A git that logs each invocation, to count processes.
    const dir = mkdtempSync(join(tmpdir(), 'revloop-git-log-'));
    const log = join(dir, 'calls.log');
    const wrapper = join(dir, 'git');
    writeFileSync(wrapper, `#!/bin/sh\necho "$*" >> '${log}'\nexec git "$@"\n`);
    chmodSync(wrapper, 0o755);
    const counted = createGit({ gitPath: wrapper });
    const calls = () => (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').length : 0);
    try {
      for (let i = 0; i < 3; i++)
        expect((await counted.readFile(repo.dir, first, 'a.txt'))?.toString()).toBe('one\n');
      expect(calls()).toBe(1);
      for (let i = 0; i < 2; i++) expect(await counted.readFile(repo.dir, first, 'b.txt')).toBeNull();
      expect(calls()).toBe(1 + 2); // an absent path also asks whether the commit exists, once
      await counted.readFile(repo.dir, 'main', 'a.txt');
      await counted.readFile(repo.dir, 'main', 'a.txt');
      expect(calls()).toBe(3 + 2);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("admission's revision questions (resolveRevision over the Git port)", () => {
  const ask = (repoDir: string, headRef: string, baseRef: string) =>
    resolveRevision({ git }, { repoDir, headRef, baseRef, configFrom: 'base' });

  it('answers root, commits, merge base and the full name, and refuses a name it cannot resolve', async () => {
    mkdirSync(join(repo.dir, 'sub', 'deeper'), { recursive: true });
    const main = await git.resolve(repo.dir, 'main');
    const hit = await ask(join(repo.dir, 'sub', 'deeper'), 'topic', 'main');
    expect({ ...hit, mergeBase: await hit.mergeBase }).toEqual({
      repo: repo.dir,
      head: topic,
      base: main,
      mergeBase: await git.mergeBase(repo.dir, main, topic),
      headRef: 'refs/heads/topic',
      branch: null,
    });
    const same = await ask(repo.dir, first, first);
    expect({ ...same, mergeBase: await same.mergeBase }).toEqual({
      repo: repo.dir,
      head: first,
      base: first,
      mergeBase: first,
      headRef: null,
      branch: null,
    });
    // An expression has no full name: it is frozen as written.
    expect(await ask(repo.dir, 'topic~1', 'main')).toMatchObject({ headRef: 'topic~1' });
    await expect(ask(repo.dir, 'topic', 'nope')).rejects.toMatchObject({ code: 'unknown_ref' });
    await expect(ask(repo.dir, 'main..topic', 'main')).rejects.toThrow();
  });

  it('gives the merge base `git merge-base base head` picks when there are several, and refuses none', async () => {
    const r = await makeRepo();
    try {
      r.commit('root');
      r.git(['branch', 'side']);
      const main1 = r.commit('main 1');
      r.git(['checkout', '--quiet', 'side']);
      const side1 = r.commit('side 1');
      // Criss-cross: each branch merges the other's first commit, so both are merge bases.
      r.git(['merge', '--quiet', '--no-edit', '--no-ff', main1]);
      r.git(['checkout', '--quiet', 'main']);
      r.git(['merge', '--quiet', '--no-edit', '--no-ff', side1]);
      expect(r.git(['merge-base', '--all', 'main', 'side']).split('\n')).toHaveLength(2);
      for (const [head, base] of [
        ['side', 'main'],
        ['main', 'side'],
      ] as const) {
        const hit = await ask(r.dir, head, base);
        expect(await hit.mergeBase).toBe(r.git(['merge-base', base, head]));
      }
      r.git(['checkout', '--quiet', '--orphan', 'lonely']);
      r.commit('unrelated');
      await expect((await ask(r.dir, 'lonely', 'main')).mergeBase).rejects.toThrow();
    } finally {
      await r.cleanup();
    }
  });
});
