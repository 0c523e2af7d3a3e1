/**
 * Git.fetchRefs, the service's fetch of a pull request's head: forced into
 * revloop's own refs (or remote-tracking ones) from a named remote, never
 * into a branch, and a refspec or remote that could be read as an option or
 * a path is refused before git runs.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGit } from '../../src/git/index.js';
import { makeRepo, TEST_GIT_ENV, type TestRepo } from '../helpers/git-repo.js';

let origin: TestRepo;
let parent: string;
let clone: string;
let first: string;
let second: string;

beforeAll(async () => {
  origin = await makeRepo();
  origin.write('a.txt', 'a\n');
  first = origin.commit('first');
  origin.write('a.txt', 'b\n');
  second = origin.commit('second');
  origin.git(['update-ref', 'refs/pull/7/head', first]);
  parent = realpathSync(mkdtempSync(join(tmpdir(), 'revloop-fetch-')));
  clone = join(parent, 'clone');
  execFileSync('git', ['clone', '-q', origin.dir, clone], { env: TEST_GIT_ENV });
});
afterAll(async () => {
  await origin.cleanup();
  rmSync(parent, { recursive: true, force: true });
});

describe('fetchRefs', () => {
  it("fetches a pull request's head into a revloop ref, and follows it when it is force-pushed", async () => {
    const git = createGit();
    await git.fetchRefs(clone, 'origin', ['+refs/pull/7/head:refs/revloop/pulls/github/7']);
    expect(await git.resolve(clone, 'refs/revloop/pulls/github/7')).toBe(first);
    origin.git(['update-ref', 'refs/pull/7/head', second]);
    await git.fetchRefs(clone, 'origin', ['+refs/pull/7/head:refs/revloop/pulls/github/7']);
    expect(await git.resolve(clone, 'refs/revloop/pulls/github/7')).toBe(second);
  });

  it.each([
    ['a branch as the destination', 'origin', '+refs/pull/7/head:refs/heads/main'],
    ['a path in the refspec', 'origin', '+refs/pull/7/head:refs/revloop/../heads/main'],
    ['an option as the remote', '--upload-pack=touch /tmp/x', '+refs/pull/7/head:refs/revloop/p/7'],
    ['a path as the remote', '/tmp/elsewhere', '+refs/pull/7/head:refs/revloop/p/7'],
  ])('refuses %s before git runs', async (_what, remote, spec) => {
    await expect(createGit().fetchRefs(clone, remote, [spec])).rejects.toThrow(
      /not a (revloop refspec|remote name)/,
    );
  });

  it('a ref the remote lacks is a GitError', async () => {
    await expect(
      createGit().fetchRefs(clone, 'origin', ['+refs/pull/99/head:refs/revloop/pulls/github/99']),
    ).rejects.toMatchObject({ code: 'git' });
  });
});
