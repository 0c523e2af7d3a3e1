import { chmodSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGit } from '../../src/git/index.js';
import { makeRepo, type TestRepo } from '../helpers/git-repo.js';
import { mapLine } from '../helpers/map-line.js';

const git = createGit();
let repo: TestRepo;

const lines = (n: number, tag = 'line'): string =>
  Array.from({ length: n }, (_, i) => `${tag} ${i + 1}`).join('\n') + '\n';

afterAll(() => repo.cleanup());

describe('changedFiles and hunks', () => {
  let base: string;
  let head: string;

  beforeAll(async () => {
    repo = await makeRepo();
    repo.write('keep.txt', lines(10));
    repo.write('gone.txt', lines(5));
    repo.write('move me.txt', lines(40, 'moved'));
    repo.write('img.bin', Buffer.from([0, 1, 2, 3, 0, 9]));
    repo.write('ünï code.md', 'a\nb\n');
    base = repo.commit('base');
    repo.write('keep.txt', lines(10).replace('line 3\n', 'line 3\nnew a\nnew b\n').replace('line 8\n', ''));
    repo.git(['rm', '--quiet', 'gone.txt']);
    repo.write('dir/moved here.txt', lines(40, 'moved'));
    repo.git(['rm', '--quiet', 'move me.txt']);
    repo.write('img.bin', Buffer.from([0, 1, 2, 4, 0, 9]));
    repo.write('ünï code.md', 'a\nB\n');
    repo.write('tab\there.txt', 'x\n');
    head = repo.commit('head');
  });

  it('lists added, deleted, renamed, binary and oddly named files', async () => {
    const files = await git.changedFiles(repo.dir, base, head);
    const sorted = [...files].sort((a, b) => a.path.localeCompare(b.path));
    expect(sorted).toEqual(
      [
        { path: 'dir/moved here.txt', oldPath: 'move me.txt', status: 'renamed' },
        { path: 'gone.txt', oldPath: 'gone.txt', status: 'deleted' },
        { path: 'img.bin', oldPath: 'img.bin', status: 'modified' },
        { path: 'keep.txt', oldPath: 'keep.txt', status: 'modified' },
        { path: 'tab\there.txt', oldPath: 'tab\there.txt', status: 'added' },
        { path: 'ünï code.md', oldPath: 'ünï code.md', status: 'modified' },
      ].sort((a, b) => a.path.localeCompare(b.path)),
    );
  });

  it('with paths, lists only the changes that touch them, as old or new path, each taken literally', async () => {
    const touched = async (paths: string[]) =>
      new Set((await git.changedFiles(repo.dir, base, head, paths)).flatMap((c) => [c.path, c.oldPath]));
    // Whichever side of a rename is asked for, that path reads as touched (P9's protected-path check).
    expect((await touched(['move me.txt'])).has('move me.txt')).toBe(true);
    expect((await touched(['dir/moved here.txt'])).has('dir/moved here.txt')).toBe(true);
    expect([...(await touched(['keep.txt', 'ünï code.md', 'not-there.txt']))].sort()).toEqual([
      'keep.txt',
      'ünï code.md',
    ]);
    // `*` is a character of the path, not a glob over every changed file.
    expect([...(await touched(['*']))]).toEqual([]);
    expect(await git.changedFiles(repo.dir, base, head, [])).toEqual([]);
  });

  it('parses zero-context hunks per file', async () => {
    const byPath = new Map((await git.hunks(repo.dir, base, head)).map((f) => [f.path, f]));
    expect(byPath.get('keep.txt')).toEqual({
      path: 'keep.txt',
      oldPath: 'keep.txt',
      hunks: [
        { oldStart: 3, oldCount: 0, newStart: 4, newCount: 2 },
        { oldStart: 8, oldCount: 1, newStart: 9, newCount: 0 },
      ],
    });
    expect(byPath.get('gone.txt')?.hunks).toEqual([{ oldStart: 1, oldCount: 5, newStart: 0, newCount: 0 }]);
    expect(byPath.get('dir/moved here.txt')).toEqual({
      path: 'dir/moved here.txt',
      oldPath: 'move me.txt',
      hunks: [],
    });
    expect(byPath.get('img.bin')).toEqual({ path: 'img.bin', oldPath: 'img.bin', hunks: [], binary: true });
    expect(byPath.get('ünï code.md')?.hunks).toEqual([
      { oldStart: 2, oldCount: 1, newStart: 2, newCount: 1 },
    ]);
    expect(byPath.get('tab\there.txt')?.hunks).toEqual([
      { oldStart: 0, oldCount: 0, newStart: 1, newCount: 1 },
    ]);
    expect(byPath.size).toBe(6);
  });
});

describe('mapLine', () => {
  let v1: string;
  let v2: string;

  beforeAll(async () => {
    // v1 -> v2: insert two lines after line 3 of a.txt, delete its line 8,
    // change its line 12; delete d.txt; rename r.txt with an edit at the top;
    // add n.txt; leave u.txt alone.
    repo.write('m/a.txt', lines(20));
    repo.write('m/d.txt', lines(5));
    repo.write('m/r.txt', lines(30, 'r'));
    repo.write('m/u.txt', lines(5));
    v1 = repo.commit('v1');
    repo.write(
      'm/a.txt',
      lines(20)
        .replace('line 3\n', 'line 3\nins 1\nins 2\n')
        .replace('line 8\n', '')
        .replace('line 12\n', 'changed\n'),
    );
    repo.git(['rm', '--quiet', 'm/d.txt']);
    repo.git(['mv', 'm/r.txt', 'm/renamed.txt']);
    repo.write('m/renamed.txt', 'header\n' + lines(30, 'r'));
    repo.write('m/n.txt', lines(3, 'unrelated'));
    v2 = repo.commit('v2');
  });

  const table: [string, string, number, number | null][] = [
    ['line above every change', 'm/a.txt', 1, 1],
    ['line just above the insertion', 'm/a.txt', 3, 3],
    ['line below an insertion of two', 'm/a.txt', 4, 6],
    ['line just above a deleted line', 'm/a.txt', 7, 9],
    ['the deleted line', 'm/a.txt', 8, null],
    ['line below a deletion (+2 -1)', 'm/a.txt', 9, 10],
    ['the changed line', 'm/a.txt', 12, null],
    ['line below every change', 'm/a.txt', 20, 21],
    ['line of a deleted file', 'm/d.txt', 2, null],
    ['line of a renamed file, shifted by its edit', 'm/r.txt', 10, 11],
    ['line of an unchanged file', 'm/u.txt', 4, 4],
    ['a path that did not exist', 'm/n.txt', 1, null],
    ['a path that never existed', 'm/none.txt', 1, null],
    ['line zero', 'm/a.txt', 0, null],
  ];

  it.each(table)('%s: %s:%i -> %s', async (_what, path, line, expected) => {
    expect(await mapLine(git, repo.dir, v1, v2, path, line)).toBe(expected);
  });

  it('maps through several revisions by composing', async () => {
    repo.write('m/a.txt', 'top\n' + (await git.readFile(repo.dir, v2, 'm/a.txt'))?.toString());
    const v3 = repo.commit('v3');
    const at2 = await mapLine(git, repo.dir, v1, v2, 'm/a.txt', 4);
    expect(at2).toBe(6);
    expect(await mapLine(git, repo.dir, v2, v3, 'm/a.txt', at2 as number)).toBe(7);
  });
});

describe('changedFiles derived from the patch', () => {
  it('lists what git diff --name-status lists, type and mode changes included', async () => {
    repo.write('c/plain.txt', lines(3));
    repo.write('c/becomes-link.txt', lines(3));
    repo.write('c/exec.sh', 'echo\n');
    repo.write('c/similar.txt', lines(30, 's'));
    const v1 = repo.commit('c v1');
    repo.git(['rm', '--quiet', 'c/becomes-link.txt']);
    symlinkSync('plain.txt', join(repo.dir, 'c/becomes-link.txt'));
    chmodSync(join(repo.dir, 'c/exec.sh'), 0o755);
    repo.git(['mv', 'c/similar.txt', 'c/renamed.txt']);
    repo.write('c/renamed.txt', lines(30, 's').replace('s 4\n', 'edited\n'));
    repo.write('c/empty', '');
    const v2 = repo.commit('c v2');
    const fromGit = repo
      .git(['diff', '--name-status', '--find-renames', v1, v2])
      .split('\n')
      .map((l) => {
        const [code = '', a = '', b] = l.split('\t');
        const status = { A: 'added', D: 'deleted', R: 'renamed' }[code[0] as string] ?? 'modified';
        return { path: b ?? a, oldPath: a, status };
      });
    const sortByPath = <T extends { path: string }>(xs: T[]) =>
      [...xs].sort((x, y) => x.path.localeCompare(y.path));
    expect(sortByPath(await git.changedFiles(repo.dir, v1, v2))).toEqual(sortByPath(fromGit));
    expect(fromGit).toHaveLength(4);
  });
});
