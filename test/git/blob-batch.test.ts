/**
 * Files at commits are read through one `git cat-file --batch` (blob-batch.ts):
 * the same answers as a process per file, for every shape of answer, and one
 * git process for a burst of reads.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blobBatchReader } from '../../src/git/blob-batch.js';
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

/** A runner that counts the git processes it starts. */
function counting(): { run: GitRunner; started: string[] } {
  const real = createRunner();
  const started: string[] = [];
  const note = (args: readonly string[]) => started.push(args.join(' '));
  return {
    started,
    run: {
      ...real,
      exec: (dir, args, o) => {
        note(args);
        return real.exec(dir, args, o);
      },
      spawnPiped: (dir, args) => {
        note(args);
        return real.spawnPiped(dir, args);
      },
    },
  };
}

describe('blob batch reader', () => {
  it('answers a burst of reads, in any order and at once, with one git process', async () => {
    const { run, started } = counting();
    const read = blobBatchReader(run);
    const paths = [...Object.keys(files), ...Object.keys(files)].reverse();
    const got = await Promise.all(paths.map((p) => read(repo.dir, head, p)));
    expect(got.map((b) => b?.toString('utf8'))).toEqual(paths.map((p) => files[p]));
    expect(started).toEqual(['cat-file --batch']);
  });

  it('answers undefined for what is not a blob: absent, a directory, a path it cannot carry', async () => {
    const read = blobBatchReader(createRunner());
    expect(await read(repo.dir, head, 'missing.txt')).toBeUndefined();
    expect(await read(repo.dir, head, 'dir')).toBeUndefined();
    expect(await read(repo.dir, head, 'a\nb')).toBeUndefined();
    expect(await read(repo.dir, 'f'.repeat(40), 'a.txt')).toBeUndefined();
    // ... and keeps answering after them
    expect((await read(repo.dir, head, 'a.txt'))?.toString()).toBe('one\n');
  });

  it('ends its process when idle, and starts another for the next burst', async () => {
    const { run, started } = counting();
    const read = blobBatchReader(run);
    await read(repo.dir, head, 'a.txt');
    await new Promise((r) => setTimeout(r, 600));
    expect((await read(repo.dir, head, 'dir/b.txt'))?.toString()).toBe('b\n');
    expect(started).toEqual(['cat-file --batch', 'cat-file --batch']);
  });
});

describe('readFile through the batch', () => {
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
