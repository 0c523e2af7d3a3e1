/**
 * The Git port's contract, written once and run against every implementation
 * (hono's `runTest({ newRouter, skip })`): what the loop relies on git for,
 * each case through the port only. An implementation gives a fixture that
 * makes commits as a person pushing would, and a skip, with its reason, for a
 * case it cannot run; a skip is printed after the run, never passed silently.
 */
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RefMovedError, UnknownRefError } from '../../src/git/errors.js';
import type { Git } from '../../src/ports/git.js';

/** What a case needs besides the port: commits made from outside, and what a fixer does in a checkout. */
export interface GitFixture {
  /** The repository the port is asked about. */
  repo: string;
  /** A commit holding exactly `files`, as a person pushing would make it; its full id. */
  commit(parent: string | null, files: Record<string, string>): Promise<string>;
  /** Points branch `name` (`refs/heads/<name>`) at `sha`, from outside the port. */
  branch(name: string, sha: string): Promise<void>;
  /** The parents of a commit, read from outside the port. */
  parents(sha: string): Promise<string[]>;
  /** A fixer's edit of a file in checkout `dir`. */
  edit(dir: string, path: string, text: string): Promise<void>;
  /** A fixer's own commit of everything in checkout `dir`. */
  fixerCommit(dir: string): Promise<void>;
  /** A path where no checkout is yet. */
  freshDir(): string;
  cleanup(): Promise<void>;
}

export interface GitImplementation {
  name: string;
  open(): Promise<{ git: Git; fx: GitFixture }>;
  /** Cases this implementation cannot run, each with why. */
  skip?: { reason: string; cases: GitCase[] }[];
}

type Case = (git: Git, fx: GitFixture) => Promise<void>;

const A = { 'src/a.ts': 'export const a = 1;\n', 'README.md': '# widgets\n' };
const B = { ...A, 'src/a.ts': 'export const a = 2;\n', 'src/b.ts': 'export const b = 1;\n' };

/** A base commit and a head that edits a file and adds one. */
async function change(fx: GitFixture): Promise<{ base: string; head: string }> {
  const base = await fx.commit(null, A);
  return { base, head: await fx.commit(base, B) };
}

export const GIT_CASES = {
  'resolves a branch and a full commit id, and refuses an unknown name': async (git, fx) => {
    const { head } = await change(fx);
    await fx.branch('topic', head);
    expect(await git.resolve(fx.repo, 'topic')).toBe(head);
    expect(await git.resolve(fx.repo, 'refs/heads/topic')).toBe(head);
    expect(await git.resolve(fx.repo, head)).toBe(head);
    await expect(git.resolve(fx.repo, 'no-such-branch')).rejects.toBeInstanceOf(UnknownRefError);
  },

  'names a branch by its full ref, and a commit id by none': async (git, fx) => {
    const { head } = await change(fx);
    await fx.branch('topic', head);
    expect(await git.fullRefName(fx.repo, 'topic')).toBe('refs/heads/topic');
    expect(await git.fullRefName(fx.repo, head)).toBeNull();
    expect(await git.refHolds(fx.repo, 'refs/heads/topic', head)).toBe(true);
    expect(await git.refHolds(fx.repo, 'refs/heads/gone', head)).toBe(false);
  },

  'knows which commits exist and where two lines of history meet': async (git, fx) => {
    const { base, head } = await change(fx);
    const side = await fx.commit(base, { ...A, 'side.txt': 'x\n' });
    expect(await git.commitExists(fx.repo, head)).toBe(true);
    expect(await git.commitExists(fx.repo, 'e'.repeat(40))).toBe(false);
    expect(await git.mergeBase(fx.repo, head, side)).toBe(base);
  },

  'the canonical diff digest is stable across calls and reads, and names its revisions': async (git, fx) => {
    const { base, head } = await change(fx);
    const other = await fx.commit(base, { ...A, 'src/a.ts': 'export const a = 3;\n' });
    const first = await git.diffDigest(fx.repo, base, head);
    expect(first).toMatch(/^[0-9a-f]{64}$/);
    expect(await git.diffDigest(fx.repo, base, head)).toBe(first);
    const read = await git.diffRead(fx.repo, base, head, 1 << 20);
    expect(read.digest).toBe(first);
    expect(read.text).toBe(await git.diffText(fx.repo, base, head, 1 << 20));
    expect(read.text).toContain('src/b.ts');
    // Past maxBytes the text is dropped, never the digest.
    const cut = await git.diffRead(fx.repo, base, head, 8);
    expect(cut).toMatchObject({ digest: first, text: null });
    expect(await git.diffDigest(fx.repo, base, other)).not.toBe(first);
  },

  'lists the files a change touched, with their hunks': async (git, fx) => {
    const { base, head } = await change(fx);
    const files = await git.changedFiles(fx.repo, base, head);
    expect(files.map((f) => [f.path, f.status]).sort()).toEqual([
      ['src/a.ts', 'modified'],
      ['src/b.ts', 'added'],
    ]);
    const hunks = await git.hunks(fx.repo, base, head);
    expect(hunks.find((h) => h.path === 'src/a.ts')?.hunks).toEqual([
      { oldStart: 1, oldCount: 1, newStart: 1, newCount: 1 },
    ]);
  },

  'reads a file as it was at a commit, and its size': async (git, fx) => {
    const { base, head } = await change(fx);
    expect((await git.readFile(fx.repo, base, 'src/a.ts'))?.toString()).toBe(A['src/a.ts']);
    expect((await git.readFile(fx.repo, head, 'src/a.ts'))?.toString()).toBe(B['src/a.ts']);
    expect(await git.readFile(fx.repo, base, 'src/b.ts')).toBeNull();
    const sizes = await git.blobSizes(fx.repo, head, [{ path: 'src/b.ts' }, { path: 'nope.txt' }]);
    expect(sizes.get('src/b.ts')).toBe(Buffer.byteLength(B['src/b.ts']));
    expect(sizes.get('nope.txt')).toBeNull();
  },

  'adds a checkout at a commit, and removes it': async (git, fx) => {
    const { head } = await change(fx);
    const dir = fx.freshDir();
    await git.addWorktree(fx.repo, dir, head);
    expect(await git.status(dir)).toEqual([]);
    expect(await git.bindWorktree(fx.repo, dir)).toBe(true);
    await git.removeWorktree(fx.repo, dir);
    expect(await git.bindWorktree(fx.repo, dir)).toBe(false);
  },

  'commits a fixer edit as one commit whose one parent is the revision': async (git, fx) => {
    const { head } = await change(fx);
    const dir = fx.freshDir();
    await git.addWorktree(fx.repo, dir, head);
    expect(await git.commitAll(dir, head, 'nothing')).toBeNull();
    await fx.edit(dir, 'src/a.ts', 'export const a = 4;\n');
    expect((await git.status(dir)).map((s) => s.path)).toEqual(['src/a.ts']);
    const fix = await git.commitAll(dir, head, 'fix: a');
    expect(fix).toMatch(/^[0-9a-f]{40}$/);
    if (!fix) return;
    expect(await fx.parents(fix)).toEqual([head]);
    expect((await git.readFile(fx.repo, fix, 'src/a.ts'))?.toString()).toBe('export const a = 4;\n');
    expect(await git.status(dir)).toEqual([]);
    await git.removeWorktree(fx.repo, dir);
  },

  "folds the fixer's own commits into one fix commit with one parent": async (git, fx) => {
    const { head } = await change(fx);
    const dir = fx.freshDir();
    await git.addWorktree(fx.repo, dir, head);
    await fx.edit(dir, 'src/a.ts', 'export const a = 5;\n');
    await fx.fixerCommit(dir);
    await fx.edit(dir, 'src/b.ts', 'export const b = 5;\n');
    const fix = await git.commitAll(dir, head, 'fix: a and b');
    if (!fix) throw new Error('no fix commit');
    expect(await fx.parents(fix)).toEqual([head]);
    expect((await git.changedFiles(fx.repo, head, fix)).map((f) => f.path).sort()).toEqual([
      'src/a.ts',
      'src/b.ts',
    ]);
    await git.removeWorktree(fx.repo, dir);
  },

  'resets a checkout to a revision, its edits gone': async (git, fx) => {
    const { base, head } = await change(fx);
    const dir = fx.freshDir();
    await git.addWorktree(fx.repo, dir, head);
    await fx.edit(dir, 'src/a.ts', 'edited\n');
    await git.resetWorktree(dir, base);
    expect(await git.status(dir)).toEqual([]);
    await fx.edit(dir, 'README.md', '# changed\n');
    const fix = await git.commitAll(dir, base, 'fix: readme');
    if (!fix) throw new Error('no fix commit');
    expect(await fx.parents(fix)).toEqual([base]);
    await git.removeWorktree(fx.repo, dir);
  },

  'moves a ref only from the value it expects (compare-and-swap)': async (git, fx) => {
    const { base, head } = await change(fx);
    const ref = 'refs/revloop/runs/contract';
    await git.updateRef(fx.repo, ref, base);
    expect(await git.refHolds(fx.repo, ref, base)).toBe(true);
    await git.updateRef(fx.repo, ref, head, base);
    expect(await git.refHolds(fx.repo, ref, head)).toBe(true);
    await expect(git.updateRef(fx.repo, ref, base, base)).rejects.toBeInstanceOf(RefMovedError);
    expect(await git.resolve(fx.repo, ref)).toBe(head);
  },

  'fast-forwards a branch only from where it is': async (git, fx) => {
    const { base, head } = await change(fx);
    await fx.branch('topic', base);
    await expect(git.fastForward(fx.repo, 'refs/heads/topic', head, head)).rejects.toBeInstanceOf(
      RefMovedError,
    );
    expect(await git.resolve(fx.repo, 'topic')).toBe(base);
    expect(await git.fastForward(fx.repo, 'refs/heads/topic', base, head)).toEqual({ checkout: null });
    expect(await git.resolve(fx.repo, 'topic')).toBe(head);
  },

  'carries a fix commit in a bundle that imports only as that commit': async (git, fx) => {
    const { head } = await change(fx);
    const dir = fx.freshDir();
    await git.addWorktree(fx.repo, dir, head);
    await fx.edit(dir, 'src/a.ts', 'export const a = 6;\n');
    const fix = await git.commitAll(dir, head, 'fix: bundled');
    if (!fix) throw new Error('no fix commit');
    const bundle = await git.bundleFix(dir, fix, head);
    await expect(
      git.importFixBundle(fx.repo, bundle, head, 'refs/revloop/imports/contract/wrong'),
    ).rejects.toThrow();
    expect(await git.refHolds(fx.repo, 'refs/revloop/imports/contract/wrong', head)).toBe(false);
    await git.importFixBundle(fx.repo, bundle, fix, 'refs/revloop/imports/contract/fix');
    expect(await git.refHolds(fx.repo, 'refs/revloop/imports/contract/fix', fix)).toBe(true);
    await git.removeWorktree(fx.repo, dir);
  },
} as const satisfies Record<string, Case>;
export type GitCase = keyof typeof GIT_CASES;

export function runGitContract(impl: GitImplementation): void {
  const skipped = new Map<string, string>();
  for (const s of impl.skip ?? []) for (const c of s.cases) skipped.set(c, s.reason);

  describe(`Git port contract: ${impl.name}`, () => {
    let git: Git;
    let fx: GitFixture;
    beforeEach(async () => {
      ({ git, fx } = await impl.open());
    });
    afterEach(async () => {
      await fx.cleanup();
    });
    afterAll(() => {
      // What this implementation did not run, and why, in the output of every run.
      const lines = [...skipped].map(([c, reason]) => `  SKIP ${c}: ${reason}`);
      console.log(`Git port contract, ${impl.name}: ${lines.length} case(s) skipped\n${lines.join('\n')}`);
    });

    it('every skip names a case and gives its reason', () => {
      for (const [c, reason] of skipped) {
        expect(Object.keys(GIT_CASES), c).toContain(c);
        expect(reason.length, `${c}: a skip needs its reason`).toBeGreaterThan(20);
      }
      expect(skipped.size, 'an implementation that runs no case is no implementation').toBeLessThan(
        Object.keys(GIT_CASES).length,
      );
    });

    for (const [name, run] of Object.entries(GIT_CASES) as [GitCase, Case][]) {
      const reason = skipped.get(name);
      if (reason) it.skip(`${name} (skipped: ${reason})`, () => {});
      else it(name, () => run(git, fx));
    }
  });
}
