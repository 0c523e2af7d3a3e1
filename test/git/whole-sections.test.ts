/**
 * A changed file whose one hunk runs from its first line to its last carries
 * the file whole in the diff (diff-sections.ts `whole`), so API reviewers are
 * not sent its content a second time as context. Read from a real
 * repository's real canonical diff, and checked against git itself: every
 * section said whole must rebuild, from its hunk's `+` and context lines, the
 * file at the revision byte for byte. A file wrongly said whole would be left
 * out of the context with parts of it missing from the prompt.
 */
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { diffSections } from '../../src/git/diff-sections.js';
import { createGit } from '../../src/git/index.js';
import { makeRepo, type TestRepo } from '../helpers/git-repo.js';

let repo: TestRepo;
let base: string;
let head: string;

const lines = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag} ${i + 1}\n`).join('');

beforeAll(async () => {
  repo = await makeRepo();
  const twenty = lines(20, 'line');
  repo.write('one-line.ts', 'export const a = 1;\n');
  repo.write('rewritten.ts', lines(5, 'old'));
  repo.write('grown.ts', 'export const v = 0;\n');
  repo.write('no-newline.ts', 'a\nb');
  repo.write('middle.ts', twenty);
  repo.write('top.ts', twenty);
  repo.write('bottom.ts', twenty);
  repo.write('two-hunks.ts', twenty);
  // Four lines, the first changed: the hunk shows all four, but three trailing
  // context lines cannot tell the file's end from more lines after it.
  repo.write('four.ts', lines(4, 'line'));
  repo.write('emptied.ts', 'gone\n');
  base = repo.commit('base');
  repo.write('one-line.ts', 'export const a = 2;\n');
  repo.write('rewritten.ts', lines(7, 'new'));
  repo.write('grown.ts', lines(150, 'export const v ='));
  repo.write('no-newline.ts', 'a\nc');
  repo.write('middle.ts', twenty.replace('line 10\n', 'line ten\n'));
  repo.write('top.ts', twenty.replace('line 1\n', 'line one\n'));
  repo.write('bottom.ts', twenty.replace('line 20\n', 'line twenty\n'));
  repo.write('two-hunks.ts', twenty.replace('line 1\n', 'line one\n').replace('line 20\n', 'line twenty\n'));
  repo.write('four.ts', lines(4, 'line').replace('line 1\n', 'line one\n'));
  repo.write('emptied.ts', '');
  repo.write('added.ts', 'export const fresh = 1;\n');
  head = repo.commit('change');
});
afterAll(() => repo.cleanup());

/** The file at the revision as the hunks of its section show it (context and `+` lines). */
function rebuilt(section: string): string {
  const body = section.slice(section.indexOf('\n@@ ') + 1);
  const out: string[] = [];
  let prev = '';
  for (const line of body.split('\n').slice(1)) {
    // "No newline at end of file" ends the side of the line it follows.
    if (line.startsWith('\\') && prev !== '-')
      out[out.length - 1] = (out[out.length - 1] ?? '').replace(/\n$/, '');
    else if (line.startsWith(' ') || line.startsWith('+')) out.push(`${line.slice(1)}\n`);
    prev = line[0] ?? '';
  }
  return out.join('');
}

it('says whole exactly the files whose one hunk shows every line at the revision, as git has them', async () => {
  const git = createGit();
  const diff = await git.diffText(repo.dir, base, head, 1 << 20);
  const sections = diffSections(diff, 1 << 20);
  const whole = sections.filter((s) => s.whole).map((s) => s.path);
  expect(whole.sort()).toEqual(['added.ts', 'grown.ts', 'no-newline.ts', 'one-line.ts', 'rewritten.ts']);
  for (const s of sections.filter((x) => x.whole)) {
    const atHead = execFileSync('git', ['show', `${head}:${s.path}`], { cwd: repo.dir, encoding: 'utf8' });
    expect(rebuilt(s.text), s.path).toBe(atHead);
  }
});

it('a file emptied by the change has no hunk to show it: its (empty) content is read as before', async () => {
  const git = createGit();
  const diff = await git.diffText(repo.dir, base, head, 1 << 20);
  const s = diffSections(diff, 1 << 20).find((x) => x.path === 'emptied.ts');
  expect(s?.whole).toBeUndefined();
});
