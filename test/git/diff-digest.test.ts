import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGit, DiffTooLargeError, UnknownRefError } from '../../src/git/index.js';
import { makeRepo, TEST_GIT_ENV, type TestRepo } from '../helpers/git-repo.js';

// Written out here, not imported, so a change to the adapter's flags fails this test.
const CANONICAL = [
  'diff',
  '--no-color',
  '--no-ext-diff',
  '--no-textconv',
  '--binary',
  '--full-index',
  '--no-renames',
  '--diff-algorithm=myers',
  '--indent-heuristic',
  '-U3',
  '--inter-hunk-context=0',
  '--src-prefix=a/',
  '--dst-prefix=b/',
  '--no-relative',
  '--submodule=short',
  '--ignore-submodules=none',
  '-O/dev/null',
];

let repo: TestRepo;
let base: string;
let head: string;
let scratch: string;

/** `git diff <canonical> base head | sha256sum`, under a clean config. */
function independentDigest(dir: string, a: string, b: string): { hex: string; bytes: Buffer } {
  const bytes = execFileSync('git', ['-C', dir, ...CANONICAL, a, b], {
    env: TEST_GIT_ENV,
    maxBuffer: 1 << 28,
  });
  return { hex: createHash('sha256').update(bytes).digest('hex'), bytes };
}

/** The text prompts carry: what git itself writes with the same flags but `--binary`. */
function promptText(dir: string, a: string, b: string): string {
  const flags = CANONICAL.filter((f) => f !== '--binary');
  return execFileSync('git', ['-C', dir, ...flags, a, b], { env: TEST_GIT_ENV, maxBuffer: 1 << 28 }).toString(
    'utf8',
  );
}

const body = (n: number): string =>
  Array.from({ length: n }, (_, i) => (i % 7 === 3 ? '' : `int f${i}(void) { return ${i}; }`)).join('\n') +
  '\n';

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'revloop-digest-'));
  repo = await makeRepo();
  repo.write('src/main.c', body(60));
  repo.write('src/old name.c', body(30));
  repo.write('docs/ünïcödé.md', 'alpha\n\nbeta\n\ngamma\n');
  repo.write('bin/blob.dat', Buffer.from(Array.from({ length: 300 }, (_, i) => (i * 37) % 256)));
  repo.write('run.sh', 'echo hi\n');
  base = repo.commit('base');
  // Changes 4 lines apart (hunks a hostile interHunkContext would merge),
  // blank context lines, a rename, a copy, a binary edit, a mode change.
  repo.write('src/main.c', body(60).replace('f10(void)', 'g10(void)').replace('f17(void)', 'g17(void)'));
  repo.write('src/new name.c', body(30));
  repo.git(['rm', '--quiet', 'src/old name.c']);
  repo.write('src/copy.c', body(60));
  repo.write('docs/ünïcödé.md', 'alpha\n\nBETA\n\ngamma\n');
  repo.write('bin/blob.dat', Buffer.from(Array.from({ length: 300 }, (_, i) => (i * 41) % 256)));
  repo.git(['update-index', '--chmod=+x', 'run.sh']);
  head = repo.commit('head');
});

afterAll(async () => {
  await repo.cleanup();
  rmSync(scratch, { recursive: true, force: true });
});

describe('diffDigest', () => {
  it('equals sha256 of git diff with the canonical flags', async () => {
    const want = independentDigest(repo.dir, base, head);
    expect(want.bytes.toString()).toContain('GIT binary patch');
    expect(want.bytes.toString()).toContain('diff --git a/src/old name.c b/src/old name.c');
    expect(await createGit().diffDigest(repo.dir, base, head)).toBe(want.hex);
  });

  it('is stable under a hostile global config, environment and worktree attributes', async () => {
    const order = join(scratch, 'order');
    writeFileSync(order, 'src/copy.c\nrun.sh\n');
    const attrs = join(scratch, 'attributes');
    writeFileSync(attrs, '*.c diff=cfunc\n*.md -diff\n');
    const config = join(scratch, 'gitconfig');
    writeFileSync(
      config,
      [
        '[diff]',
        '\tnoprefix = true',
        '\tmnemonicPrefix = true',
        '\trenames = copies',
        '\talgorithm = patience',
        '\tcontext = 9',
        '\tinterHunkContext = 10',
        '\tsuppressBlankEmpty = true',
        '\tindentHeuristic = false',
        '\trelative = true',
        `\torderFile = ${order}`,
        '\texternal = false',
        '[diff "cfunc"]',
        '\txfuncname = ^int f1.*$',
        '[color]',
        '\tui = always',
        '\tdiff = always',
        '[core]',
        '\tquotePath = false',
        '\tabbrev = 12',
        `\tattributesFile = ${attrs}`,
        '',
      ].join('\n'),
    );
    const want = independentDigest(repo.dir, base, head).hex;
    // The worktree's own, uncommitted attributes must not count either.
    repo.write('.gitattributes', 'bin/* diff\n*.c -diff\n');
    const saved = process.env.GIT_DIFF_OPTS;
    process.env.GIT_DIFF_OPTS = '--unified=8';
    try {
      const hostile = createGit({ env: { GIT_CONFIG_GLOBAL: config, GIT_CONFIG_NOSYSTEM: '1' } });
      // The hostile config really changes plain `git diff`.
      const plain = execFileSync('git', ['-C', repo.dir, 'diff', '--no-ext-diff', base, head], {
        env: { ...TEST_GIT_ENV, GIT_CONFIG_GLOBAL: config },
      });
      expect(createHash('sha256').update(plain).digest('hex')).not.toBe(want);
      // ...and so do worktree attributes, even with the canonical flags.
      expect(independentDigest(repo.dir, base, head).hex).not.toBe(want);
      expect(await hostile.diffDigest(repo.dir, base, head)).toBe(want);
    } finally {
      if (saved === undefined) delete process.env.GIT_DIFF_OPTS;
      else process.env.GIT_DIFF_OPTS = saved;
      rmSync(join(repo.dir, '.gitattributes'));
    }
  });

  it('is the same from a linked worktree and from a subdirectory', async () => {
    const git = createGit();
    const want = independentDigest(repo.dir, base, head).hex;
    const wt = join(scratch, 'wt');
    await git.addWorktree(repo.dir, wt, base);
    try {
      expect(await git.diffDigest(wt, base, head)).toBe(want);
      expect(await git.diffDigest(join(repo.dir, 'src'), base, head)).toBe(want);
    } finally {
      await git.removeWorktree(repo.dir, wt);
    }
  });

  it('differs when the diff differs, and names an unknown commit', async () => {
    const git = createGit();
    expect(await git.diffDigest(repo.dir, base, head)).not.toBe(await git.diffDigest(repo.dir, head, base));
    expect(await git.diffDigest(repo.dir, base, base)).toBe(createHash('sha256').update('').digest('hex'));
    await expect(git.diffDigest(repo.dir, base, 'a'.repeat(40))).rejects.toBeInstanceOf(UnknownRefError);
    await expect(git.diffDigest(repo.dir, 'nope', head)).rejects.toMatchObject({ ref: 'nope' });
  });
});

describe('diffText', () => {
  it("returns the canonical diff's text, each binary patch as git's own line for it", async () => {
    const text = await createGit().diffText(repo.dir, base, head, 1 << 20);
    expect(text).toBe(promptText(repo.dir, base, head));
    expect(text).toContain('Binary files a/bin/blob.dat and b/bin/blob.dat differ\n');
    expect(text).not.toContain('GIT binary patch');
  });

  it('throws DiffTooLargeError past maxBytes', async () => {
    const size = independentDigest(repo.dir, base, head).bytes.length;
    const git = createGit();
    await expect(git.diffText(repo.dir, base, head, size - 1)).rejects.toBeInstanceOf(DiffTooLargeError);
    await expect(git.diffText(repo.dir, base, head, 10)).rejects.toMatchObject({
      code: 'diff_too_large',
      data: { maxBytes: 10 },
    });
    expect((await git.diffText(repo.dir, base, head, size)).length).toBeGreaterThan(0);
  });
});

describe('diffRead', () => {
  it('gives the digest and the text from one read; past maxBytes, the digest and no text', async () => {
    const git = createGit();
    const { hex: digest, bytes } = independentDigest(repo.dir, base, head);
    // The digest is of the canonical bytes (binary patches and all); the text is what prompts carry.
    expect(await git.diffRead(repo.dir, base, head, bytes.length)).toEqual({
      digest,
      text: promptText(repo.dir, base, head),
      // The canonical bytes, before their binary patches become one line.
      textBytes: bytes.length,
    });
    expect(await git.diffRead(repo.dir, base, head, bytes.length - 1)).toEqual({ digest, text: null });
    await expect(git.diffRead(repo.dir, base, 'a'.repeat(40), 10)).rejects.toBeInstanceOf(UnknownRefError);
  });
});
