/**
 * The git side of `review --apply` (issue 15, point 13): a compare-and-swap
 * fast-forward that refuses a moved branch and a checkout with work under way.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createGit } from '../../src/git/index.js';
import { makeRepo, type TestRepo } from '../helpers/git-repo.js';

const repos: TestRepo[] = [];
afterAll(async () => {
  for (const r of repos) await r.cleanup();
});

async function topicRepo() {
  const r = await makeRepo();
  repos.push(r);
  r.write('a.txt', 'a\n');
  const base = r.commit('base');
  r.git(['checkout', '-q', '-b', 'topic']);
  r.write('a.txt', 'a\nb\n');
  const head = r.commit('change');
  r.write('a.txt', 'a\nb\nfixed\n');
  r.git(['add', '-A']);
  const fix = r.git(['commit-tree', r.git(['write-tree']), '-p', head, '-m', 'fix']);
  r.git(['checkout', '-q', '--', '.']);
  r.git(['reset', '-q', '--hard', head]);
  return { r, base, head, fix };
}

describe('fastForward', () => {
  it('moves a checked-out branch with its index and files', async () => {
    const { r, head, fix } = await topicRepo();
    expect(await createGit().fastForward(r.dir, 'refs/heads/topic', head, fix)).toEqual({ checkout: r.dir });
    expect(r.git(['rev-parse', 'topic'])).toBe(fix);
    expect(r.git(['status', '--porcelain'])).toBe('');
    expect(r.git(['show', 'HEAD:a.txt'])).toBe('a\nb\nfixed');
  });

  it('refuses a branch that moved since admission, and a checkout with a merge under way', async () => {
    const { r, base, head, fix } = await topicRepo();
    const git = createGit();
    await expect(git.fastForward(r.dir, 'refs/heads/topic', base, fix)).rejects.toMatchObject({
      code: 'ref_moved',
    });
    writeFileSync(join(r.dir, '.git', 'MERGE_HEAD'), `${base}\n`);
    await expect(git.fastForward(r.dir, 'refs/heads/topic', head, fix)).rejects.toMatchObject({
      code: 'checkout_not_clean',
      kind: 'operation',
    });
    expect(r.git(['rev-parse', 'topic'])).toBe(head);
  });

  it('moves a branch no checkout shows by compare-and-swap alone', async () => {
    const { r, head, fix } = await topicRepo();
    r.git(['checkout', '-q', 'main']);
    expect(await createGit().fastForward(r.dir, 'refs/heads/topic', head, fix)).toEqual({ checkout: null });
    expect(r.git(['rev-parse', 'topic'])).toBe(fix);
    expect(r.git(['status', '--porcelain'])).toBe('');
  });
});
