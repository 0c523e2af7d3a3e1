/**
 * A commit id names fixed content to revloop: `refs/replace/*` is ignored by
 * every git it runs (GIT_NO_REPLACE_OBJECTS), so a replace ref made while a
 * run holds a digest cannot make the same two ids mean another diff (the
 * freeze check trusts a range's digest once read in a process, issue 17).
 */
import { afterAll, expect, it } from 'vitest';
import { createGit } from '../../src/git/index.js';
import { makeRepo, type TestRepo } from '../helpers/git-repo.js';

const repos: TestRepo[] = [];
afterAll(async () => {
  for (const r of repos) await r.cleanup();
});

it('a replace ref does not change the diff of two commit ids', async () => {
  const r = await makeRepo();
  repos.push(r);
  r.write('a.txt', 'one\n');
  const base = r.commit('base');
  r.write('a.txt', 'two\n');
  const head = r.commit('change');
  r.write('a.txt', 'three: not what was reviewed\n');
  const other = r.commit('other');
  const git = createGit({});
  const before = await git.diffText(r.dir, base, head, 1 << 20);
  const digest = await git.diffDigest(r.dir, base, head);
  r.git(['replace', head, other]);
  // The hazard is real for a git that honours replace refs: plain `git diff` now shows "three".
  expect(r.git(['diff', base, head])).toContain('three');
  expect(await git.diffText(r.dir, base, head, 1 << 20)).toBe(before);
  expect(await git.diffDigest(r.dir, base, head)).toBe(digest);
  expect(before).toContain('+two');
});
