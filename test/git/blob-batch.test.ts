/**
 * Files at commits are read through one `git cat-file --batch` (blob-batch.ts):
 * the same answers as a process per file, for every shape of answer, and one
 * git process for a burst of reads, written to it in one write. Sizes come
 * from a second such process (`--batch-check`) without the bytes, and a read
 * by blob id gives what a read by path gives.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blobBatchReader, blobSizeReader } from '../../src/git/blob-batch.js';
import { createGit, UnknownRefError } from '../../src/git/index.js';
import { createRunner, type GitRunner } from '../../src/git/run.js';
import { makeRepo, type TestRepo } from '../helpers/git-repo.js';

let repo: TestRepo;
let head: string;
const big = randomBytes(600_000).toString('base64'); // many pipe chunks
const files: Record<string, string> = {
  'a.txt': 'one\n',
  'empty.txt': '',
  'dir/b.txt': 'b\n',
  'big.txt': big,
  'no-newline.txt': 'x',
};

beforeAll(async () => {
  repo = await makeRepo();
  for (const [p, c] of Object.entries(files)) repo.write(p, c);
  head = repo.commit('files');
});
afterAll(() => repo.cleanup());

/** A runner that counts the git processes it starts, and the writes to their input. */
function counting(): { run: GitRunner; started: string[]; writes: string[] } {
  const real = createRunner();
  const started: string[] = [];
  const writes: string[] = [];
  const note = (args: readonly string[]) => started.push(args.join(' '));
  return {
    started,
    writes,
    run: {
      ...real,
      exec: (dir, args, o) => {
        note(args);
        return real.exec(dir, args, o);
      },
      spawnPiped: (dir, args) => {
        note(args);
        const child = real.spawnPiped(dir, args);
        const write = child.stdin.write.bind(child.stdin) as (c: string) => boolean;
        Reflect.set(child.stdin, 'write', (c: string) => {
          writes.push(c);
          return write(c);
        });
        return child;
      },
    },
  };
}

/** The blob id of `path` at `rev`, as git names it. */
function blobId(rev: string, path: string): string {
  return execFileSync('git', ['rev-parse', `${rev}:${path}`], { cwd: repo.dir, encoding: 'utf8' }).trim();
}

describe('blob batch reader', () => {
  it('answers a burst of reads, in any order and at once, with one git process', async () => {
    const { run, started } = counting();
    const read = blobBatchReader(run);
    const paths = [...Object.keys(files), ...Object.keys(files)].reverse();
    const got = await Promise.all(paths.map((p) => read(repo.dir, `${head}:${p}`)));
    expect(got.map((b) => b?.toString('utf8'))).toEqual(paths.map((p) => files[p]));
    expect(started).toEqual(['cat-file --batch']);
  });

  it('answers undefined for what is not a blob: absent, a directory, a path it cannot carry', async () => {
    const read = blobBatchReader(createRunner());
    expect(await read(repo.dir, `${head}:missing.txt`)).toBeUndefined();
    expect(await read(repo.dir, `${head}:dir`)).toBeUndefined();
    expect(await read(repo.dir, `${head}:a\nb`)).toBeUndefined();
    expect(await read(repo.dir, `${'f'.repeat(40)}:a.txt`)).toBeUndefined();
    // ... and keeps answering after them
    expect((await read(repo.dir, `${head}:a.txt`))?.toString()).toBe('one\n');
  });

  it('writes the names asked in one turn to git in one write', async () => {
    const { run, writes } = counting();
    const read = blobBatchReader(run);
    const paths = Object.keys(files);
    await Promise.all(paths.map((p) => read(repo.dir, `${head}:${p}`)));
    expect(writes).toEqual([`${paths.map((p) => `${head}:${p}`).join('\n')}\n`]);
  });

  it('ends its process when idle, and starts another for the next burst', async () => {
    const { run, started } = counting();
    const read = blobBatchReader(run);
    await read(repo.dir, `${head}:a.txt`);
    await new Promise((r) => setTimeout(r, 600));
    expect((await read(repo.dir, `${head}:dir/b.txt`))?.toString()).toBe('b\n');
    expect(started).toEqual(['cat-file --batch', 'cat-file --batch']);
  });
});

describe('sizes without the bytes', () => {
  it('answers each blob its size, null for what is not one, from one --batch-check process', async () => {
    const { run, started } = counting();
    const size = blobSizeReader(run);
    const paths = Object.keys(files);
    const got = await Promise.all(paths.map((p) => size(repo.dir, `${head}:${p}`)));
    expect(got).toEqual(paths.map((p) => Buffer.byteLength(files[p] as string)));
    expect(await size(repo.dir, `${head}:dir`)).toBeNull();
    expect(await size(repo.dir, `${head}:missing.txt`)).toBeNull();
    expect(await size(repo.dir, `${head}:a\nb`)).toBeUndefined();
    expect(started).toEqual(['cat-file --batch-check']);
  });

  it('Git.blobSizes: by path or by blob id, no entry where it cannot ask, UnknownRefError for a missing commit', async () => {
    const git = createGit();
    const asked = [
      { path: 'a.txt' },
      { path: 'big.txt', blob: blobId(head, 'big.txt') },
      { path: 'dir' },
      { path: 'missing.txt' },
      { path: 'a\nb' },
    ];
    const sizes = await git.blobSizes(repo.dir, head, asked);
    expect([...sizes]).toEqual([
      ['a.txt', 4],
      ['big.txt', big.length],
      ['dir', null],
      ['missing.txt', null],
    ]);
    // A name that can move is not asked at all: read the file to know.
    expect((await git.blobSizes(repo.dir, 'HEAD', [{ path: 'a.txt' }])).size).toBe(0);
    await expect(git.blobSizes(repo.dir, 'f'.repeat(40), [{ path: 'a.txt' }])).rejects.toBeInstanceOf(
      UnknownRefError,
    );
  });
});

describe('readFile through the batch', () => {
  it('by blob id gives what the path gives, kept under the id and never under the path', async () => {
    const git = createGit();
    for (const p of Object.keys(files))
      expect((await git.readFile(repo.dir, head, p, blobId(head, p)))?.toString()).toBe(files[p]);
    // Kept under the id: another path (or commit) naming the same blob is not asked of git again.
    const { run, writes } = counting();
    const { revOps } = await import('../../src/git/revs.js');
    const { commonDirResolver } = await import('../../src/git/common-dir.js');
    const ops = revOps(run, commonDirResolver(run));
    const id = blobId(head, 'a.txt');
    expect((await ops.readFile(repo.dir, head, 'a.txt', id))?.toString()).toBe('one\n');
    expect((await ops.readFile(repo.dir, head, 'elsewhere/a-copy.txt', id))?.toString()).toBe('one\n');
    expect(writes.filter((w) => w.includes(id))).toHaveLength(1);
    // The id is the caller's word: a wrong one is answered, but a later read by path asks git again.
    const wrong = blobId(head, 'dir/b.txt');
    expect((await git.readFile(repo.dir, head, 'a.txt', wrong))?.toString()).toBe('b\n');
    expect((await git.readFile(repo.dir, head, 'a.txt'))?.toString()).toBe('one\n');
  });

  const git = createGit();
  it('gives the same answers as before: content, null for absent or a tree, UnknownRefError for a missing commit', async () => {
    for (const [p, c] of Object.entries(files))
      expect((await git.readFile(repo.dir, head, p))?.toString()).toBe(c);
    expect(await git.readFile(repo.dir, head, 'missing.txt')).toBeNull();
    expect(await git.readFile(repo.dir, head, 'dir')).toBeNull();
    await expect(git.readFile(repo.dir, 'f'.repeat(40), 'a.txt')).rejects.toBeInstanceOf(UnknownRefError);
    // A name that can move is read one process per file, never from a long-lived batch.
    expect((await git.readFile(repo.dir, 'HEAD', 'a.txt'))?.toString()).toBe('one\n');
  });
});
