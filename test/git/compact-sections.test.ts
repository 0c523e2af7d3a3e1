/**
 * Sections that say nothing a reviewer needs in their lines are cut to what
 * git itself writes for them (diff-sections.ts), checked against git on a
 * real repository: an exact rename becomes `git diff -M`'s rename header (its
 * deleted side `git diff -D`'s header), a deleted file over the limit
 * `git diff -D`'s header; a smaller deletion and a copy beyond the first stay
 * whole. A move with an edit, or with a mode change, is paired by git's own
 * rename detection (Git.promptSections, rename-sections.ts), asked of only
 * the files still added or deleted whole.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { planChunks } from '../../src/core/chunks.js';
import { canonicalDiffArgs } from '../../src/git/canonical-diff.js';
import { diffSections } from '../../src/git/diff-sections.js';
import { createGit } from '../../src/git/index.js';
import { makeRepo, TEST_GIT_ENV, type TestRepo } from '../helpers/git-repo.js';

const LIMIT = 20_000;
let repo: TestRepo;
let base: string;
let head: string;

const lines = (tag: string, n: number) =>
  Array.from({ length: n }, (_, i) => `export const ${tag}${i} = ${i};\n`).join('');

beforeAll(async () => {
  repo = await makeRepo();
  repo.write('src/big.js', lines('big', 2000)); // ~44 KB: over LIMIT
  repo.write('src/é moved.js', lines('q', 20));
  repo.write('src/small-gone.js', lines('s', 10));
  repo.write('src/large-gone.js', lines('l', 2000));
  repo.write('src/edited.js', lines('e', 50));
  repo.write('src/copied.js', lines('c', 10));
  repo.write('run.sh', 'echo hi\n');
  base = repo.commit('base');
  // Moves: the same bytes at a new path.
  repo.write('lib/big.js', lines('big', 2000));
  repo.write('lib/é moved.js', lines('q', 20));
  repo.git(['rm', '-q', 'src/big.js', 'src/é moved.js']);
  repo.git([
    'rm',
    '-q',
    'src/small-gone.js',
    'src/large-gone.js',
    'src/edited.js',
    'src/copied.js',
    'run.sh',
  ]);
  repo.write('lib/edited.js', `${lines('e', 50)}export const more = 1;\n`);
  repo.write('lib/copied-1.js', lines('c', 10));
  repo.write('lib/copied-2.js', lines('c', 10));
  repo.write('bin/run.sh', 'echo hi\n');
  chmodSync(join(repo.dir, 'bin/run.sh'), 0o755);
  head = repo.commit('move things');
});
afterAll(() => repo.cleanup());

/** git's own diff of some paths, with the canonical flags and `extra` in place of `--no-renames`. */
function gitDiff(extra: string[], paths: string[]): string {
  const args = canonicalDiffArgs(base, head).flatMap((a) => (a === '--no-renames' ? extra : [a]));
  return execFileSync('git', [...args, ...paths], { cwd: `${repo.dir}/.git`, env: TEST_GIT_ENV }).toString(
    'utf8',
  );
}

it("cuts exact renames and large deletions to git's own headers, and leaves the rest as git writes it", async () => {
  const git = createGit();
  const diff = await git.diffText(repo.dir, base, head, Number.POSITIVE_INFINITY);
  const sections = diffSections(diff, LIMIT);
  const text = Object.fromEntries(sections.map((s) => [s.path, s.text]));
  const whole = (path: string) => gitDiff(['--no-renames'], [path]);
  const deletedHeader = (path: string) => gitDiff(['--no-renames', '-D'], [path]);
  const rename = (from: string, to: string) => gitDiff(['-M'], [from, to]);

  // Every file of the diff is still a section of its own.
  expect(sections).toHaveLength(diff.match(/^diff --git /gm)?.length ?? 0);
  expect(sections).toHaveLength(13);
  // Exact renames: the deleted side is -D's header, the added side -M's rename header.
  expect(text['src/big.js']).toBe(deletedHeader('src/big.js'));
  expect(text['lib/big.js']).toBe(rename('src/big.js', 'lib/big.js'));
  expect(text['lib/big.js']).toContain(
    'similarity index 100%\nrename from src/big.js\nrename to lib/big.js\n',
  );
  expect(text['lib/é moved.js']).toBe(rename('src/é moved.js', 'lib/é moved.js'));
  expect(text['lib/é moved.js']).toContain('rename to "lib/\\303\\251 moved.js"\n');
  // A copy: the first new path is the rename, the second stays whole.
  expect(text['lib/copied-1.js']).toBe(rename('src/copied.js', 'lib/copied-1.js'));
  expect(text['lib/copied-2.js']).toBe(whole('lib/copied-2.js'));
  // A deletion over the limit is its header; a smaller one stays whole (what was removed can matter).
  expect(text['src/large-gone.js']).toBe(deletedHeader('src/large-gone.js'));
  expect(text['src/small-gone.js']).toBe(whole('src/small-gone.js'));
  // Not exact: an edit, or a mode change, keeps both sides whole here (git's rename detection pairs them: next test).
  for (const p of ['src/edited.js', 'lib/edited.js', 'run.sh', 'bin/run.sh'])
    expect([p, text[p]]).toEqual([p, whole(p)]);

  // The cut sections are no longer slices of the diff, and every chunk of them fits.
  const cut = sections.filter((s) => s.text !== whole(s.path));
  expect(cut.map((s) => s.path).sort()).toEqual(
    [
      'lib/big.js',
      'lib/copied-1.js',
      'lib/é moved.js',
      'src/big.js',
      'src/copied.js',
      'src/large-gone.js',
      'src/é moved.js',
    ].sort(),
  );
  for (const s of cut) {
    expect(s.at).toBeUndefined();
    expect(s.pieces).toBeUndefined();
    expect(s.bytes).toBe(Buffer.byteLength(s.text));
    // A renamed file's content is not in the diff: context may carry it, by its blob id.
    expect(s.whole).toBeUndefined();
  }
  expect(sections.find((s) => s.path === 'lib/big.js')?.blob).toBe(
    execFileSync('git', ['rev-parse', `${head}:lib/big.js`], { cwd: repo.dir, encoding: 'utf8' }).trim(),
  );
  const plan = planChunks(sections, LIMIT, diff);
  expect(plan.ok).toBe(true);
  if (plan.ok) {
    expect(plan.chunks.flatMap((c) => c.files)).toEqual(sections.map((s) => s.path));
    expect(plan.chunks.map((c) => c.text).join('')).toBe(sections.map((s) => s.text).join(''));
  }
});

it("pairs a move with an edit, or with a mode change, by git's rename detection, asked of the lone files only", async () => {
  const git = createGit();
  const diff = await git.diffText(repo.dir, base, head, Number.POSITIVE_INFINITY);
  const sections = await git.promptSections(repo.dir, base, head, diff, LIMIT);
  const text = Object.fromEntries(sections.map((s) => [s.path, s.text]));
  const rename = (from: string, to: string) => gitDiff(['-M'], [from, to]);
  expect(sections.map((s) => s.path)).toEqual(diffSections(diff, LIMIT).map((s) => s.path));
  // The edited move: the old side is -D's header, the new side git's rename section with the edit's hunk.
  expect(text['src/edited.js']).toBe(gitDiff(['--no-renames', '-D'], ['src/edited.js']));
  expect(text['lib/edited.js']).toBe(rename('src/edited.js', 'lib/edited.js'));
  expect(text['lib/edited.js']).toMatch(
    /\nsimilarity index 9\d%\nrename from src\/edited\.js\nrename to lib\/edited\.js\n/,
  );
  expect(text['lib/edited.js']).toContain('\n+export const more = 1;\n');
  expect(text['lib/edited.js']).not.toContain('\n+export const e1 = 1;\n');
  // The move that made a script executable.
  expect(text['bin/run.sh']).toBe(rename('run.sh', 'bin/run.sh'));
  expect(text['bin/run.sh']).toContain('old mode 100644\nnew mode 100755\n');
  // The second copy has no lone source left to pair with: whole, as before.
  expect(text['lib/copied-2.js']).toBe(gitDiff(['--no-renames'], ['lib/copied-2.js']));
  // What git paired is no longer lone; what it did not pair still is.
  expect(Object.fromEntries(sections.filter((s) => s.lone).map((s) => [s.path, s.lone]))).toEqual({
    'lib/copied-2.js': 'new',
    'src/large-gone.js': 'deleted',
    'src/small-gone.js': 'deleted',
  });
  expect(sections.find((s) => s.path === 'lib/edited.js')?.whole).toBeUndefined();

  // Nothing both added and deleted whole: no git process, the pure sections as they are.
  const modified =
    'diff --git a/x b/x\nindex 1111111..2222222 100644\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n';
  expect(await git.promptSections('/nonexistent', base, head, modified, LIMIT)).toEqual(
    diffSections(modified, LIMIT),
  );
});
