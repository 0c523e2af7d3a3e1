import { describe, expect, it } from 'vitest';
import { changedFilesOf, parsePatch, unquote } from '../../src/git/diff-parse.js';
import { parseStatus } from '../../src/git/status-parse.js';
import { mapLineThrough } from '../helpers/map-line.js';

describe('unquote', () => {
  it('decodes C escapes and octal UTF-8 bytes', () => {
    expect(unquote('"a/tab\\there" rest')).toEqual({ value: 'a/tab\there', rest: ' rest' });
    expect(unquote('"\\303\\274ber \\"q\\" \\\\"').value).toBe('über "q" \\');
  });
});

describe('parsePatch', () => {
  it('handles quoted names, pure renames, binaries and header-like content lines', () => {
    const patch = [
      'diff --git "a/t\\tb.txt" "b/t\\tb.txt"',
      'index 1..2 100644',
      '--- "a/t\\tb.txt"',
      '+++ "b/t\\tb.txt"',
      '@@ -2 +2 @@ ctx',
      '--- not a header',
      '+++ nor this',
      'diff --git a/old name b/new name',
      'similarity index 100%',
      'rename from old name',
      'rename to new name',
      'diff --git a/x y.bin b/x y.bin',
      'index 1..2 100644',
      'Binary files a/x y.bin and b/x y.bin differ',
      'diff --git a/sp ace b/sp ace',
      'deleted file mode 100644',
      '--- a/sp ace\t',
      '+++ /dev/null',
      '@@ -1,3 +0,0 @@',
      '-a',
      '-b',
      '-c',
      'diff --git a/empty b/empty',
      'new file mode 100644',
      'index 0..e',
      '',
    ].join('\n');
    expect(parsePatch(patch)).toEqual([
      {
        path: 't\tb.txt',
        oldPath: 't\tb.txt',
        added: false,
        deleted: false,
        hunks: [{ oldStart: 2, oldCount: 1, newStart: 2, newCount: 1 }],
      },
      { path: 'new name', oldPath: 'old name', added: false, deleted: false, hunks: [] },
      { path: 'x y.bin', oldPath: 'x y.bin', added: false, deleted: false, hunks: [], binary: true },
      {
        path: 'sp ace',
        oldPath: 'sp ace',
        added: false,
        deleted: true,
        hunks: [{ oldStart: 1, oldCount: 3, newStart: 0, newCount: 0 }],
      },
      { path: 'empty', oldPath: 'empty', added: true, deleted: false, hunks: [] },
    ]);
  });
});

describe('changedFilesOf and parseStatus', () => {
  it('lists the files of a patch as --name-status does, a type change as one modified file', () => {
    const patch = [
      'diff --git a/a b b/a b',
      'index 1..2 100644',
      '--- a/a b\t',
      '+++ b/a b\t',
      '@@ -1 +1 @@',
      'diff --git a/old b/new',
      'similarity index 87%',
      'rename from old',
      'rename to new',
      '--- a/old',
      '+++ b/new',
      '@@ -1 +1 @@',
      'diff --git a/n b/n',
      'new file mode 100644',
      'diff --git a/d b/d',
      'deleted file mode 100644',
      'diff --git a/t b/t',
      'deleted file mode 100644',
      '--- a/t',
      '+++ /dev/null',
      '@@ -1 +0,0 @@',
      'diff --git a/t b/t',
      'new file mode 120000',
      '--- /dev/null',
      '+++ b/t',
      '@@ -0,0 +1 @@',
      'diff --git a/m b/m',
      'old mode 100644',
      'new mode 100755',
      '',
    ].join('\n');
    expect(changedFilesOf(parsePatch(patch))).toEqual([
      { path: 'a b', oldPath: 'a b', status: 'modified' },
      { path: 'new', oldPath: 'old', status: 'renamed' },
      { path: 'n', oldPath: 'n', status: 'added' },
      { path: 'd', oldPath: 'd', status: 'deleted' },
      { path: 't', oldPath: 't', status: 'modified' },
      { path: 'm', oldPath: 'm', status: 'modified' },
    ]);
  });

  it('reads status -z records', () => {
    expect(parseStatus(' M a b\0R  new\0old\0?? u\0AA both\0')).toEqual([
      { path: 'a b', code: ' M', conflict: false },
      { path: 'new', code: 'R ', conflict: false },
      { path: 'u', code: '??', conflict: false },
      { path: 'both', code: 'AA', conflict: true },
    ]);
  });
});

describe('mapLineThrough', () => {
  const file = (hunks: [number, number, number, number][]) => ({
    path: 'f',
    oldPath: 'f',
    hunks: hunks.map(([oldStart, oldCount, newStart, newCount]) => ({
      oldStart,
      oldCount,
      newStart,
      newCount,
    })),
  });
  const cases: [string, [number, number, number, number][], number, number | null][] = [
    ['insert at the top', [[0, 0, 1, 2]], 1, 3],
    ['delete at the top', [[1, 2, 0, 0]], 3, 1],
    ['delete at the top, deleted line', [[1, 2, 0, 0]], 2, null],
    ['replace 1 by 3', [[5, 1, 5, 3]], 6, 8],
    ['replace 3 by 1', [[5, 3, 5, 1]], 9, 7],
    [
      'two hunks',
      [
        [2, 0, 3, 4],
        [10, 2, 13, 0],
      ],
      13,
      15,
    ],
    [
      'between two hunks',
      [
        [2, 0, 3, 4],
        [10, 2, 13, 0],
      ],
      9,
      13,
    ],
  ];
  it.each(cases)('%s', (_name, hunks, line, want) => {
    expect(mapLineThrough(file(hunks), line, false)).toBe(want);
  });
  it('gives null for binary and deleted files', () => {
    expect(mapLineThrough({ ...file([]), binary: true }, 1, false)).toBeNull();
    expect(mapLineThrough(file([]), 1, true)).toBeNull();
  });
});
