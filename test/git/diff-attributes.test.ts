/**
 * The canonical diff does not honour attributes the change itself can set
 * (issue 15, point 21): a change that adds `.gitattributes` with `*.js
 * binary` or `*.js -diff` still shows its code in the prompt diff, the hunks
 * and the digest. Git 2.43 to 2.45 read attributes from HEAD in a bare
 * repository, any git from 2.43 on honours a configured `attr.tree` (GitLab
 * sets HEAD), any from 2.41 on `GIT_ATTR_SOURCE`; revloop pins `attr.tree`
 * to the empty tree and drops `GIT_ATTR_SOURCE`.
 *
 * Each case runs on the machine's git and, when REVLOOP_TEST_GIT names
 * another git binary (say a 2.45.2 built from source), on that one too; the
 * control case shows that the hazard is real on that git.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createGit } from '../../src/git/index.js';
import { makeRepo, TEST_GIT_ENV, type TestRepo } from '../helpers/git-repo.js';

const GITS = [
  { name: 'the machine git', path: 'git' },
  ...(process.env.REVLOOP_TEST_GIT
    ? [{ name: process.env.REVLOOP_TEST_GIT, path: process.env.REVLOOP_TEST_GIT }]
    : []),
];
const versionOf = (git: string) => execFileSync(git, ['--version'], { encoding: 'utf8' }).trim();

const repos: TestRepo[] = [];
const scratch = mkdtempSync(join(tmpdir(), 'revloop-attrs-'));
afterAll(async () => {
  for (const r of repos) await r.cleanup();
  rmSync(scratch, { recursive: true, force: true });
});

const HIDDEN = 'steal(process.env.TOKEN);';

/** A change that adds its own attributes and code they would hide; the change is checked out. */
async function hidingChange(attributes: string) {
  const r = await makeRepo();
  repos.push(r);
  r.write('lib/a.js', 'export const a = 1;\n');
  const base = r.commit('base');
  r.git(['checkout', '-q', '-b', 'topic']);
  r.write('.gitattributes', attributes);
  r.write('lib/a.js', `export const a = 1;\n${HIDDEN}\n`);
  const head = r.commit('change');
  const bare = join(scratch, `bare-${repos.length}.git`);
  execFileSync('git', ['clone', '-q', '--bare', r.dir, bare], { env: TEST_GIT_ENV });
  return { r, base, head, bare };
}

async function expectShown(gitPath: string, repo: string, base: string, head: string) {
  const git = createGit({ gitPath });
  const text = await git.diffText(repo, base, head, 1 << 20);
  expect(text).toContain(`+${HIDDEN}`);
  expect(text).not.toMatch(/Binary files/);
  expect(await git.diffDigest(repo, base, head)).toBe(createHash('sha256').update(text).digest('hex'));
  const hunks = (await git.hunks(repo, base, head)).find((f) => f.path === 'lib/a.js');
  expect(hunks?.binary).toBeFalsy();
  expect(hunks?.hunks).toEqual([{ oldStart: 1, oldCount: 0, newStart: 2, newCount: 1 }]);
}

describe.each(GITS)('the canonical diff on $name', ({ path }) => {
  const atLeast = (min: number) => {
    const m = /(\d+)\.(\d+)/.exec(versionOf(path));
    return m ? Number(m[1]) * 100 + Number(m[2]) >= min : false;
  };

  it.each(['*.js binary\n', '*.js -diff\n'])(
    'a change adding "%s" still shows its code: checkout, bare clone, attr.tree=HEAD, GIT_ATTR_SOURCE',
    async (attributes) => {
      const { r, base, head, bare } = await hidingChange(attributes);
      // The attributes are in the checkout and the index, as on a developer's machine.
      await expectShown(path, r.dir, base, head);
      // A CI runner's bare mirror, whose HEAD is the change (git 2.43-2.45 read attributes there).
      await expectShown(path, bare, base, head);
      // attr.tree set in the repository's config (git 2.43+ honours it).
      execFileSync('git', ['-C', bare, 'config', 'attr.tree', 'HEAD'], { env: TEST_GIT_ENV });
      await expectShown(path, bare, base, head);
      // GIT_ATTR_SOURCE in revloop's own environment (git 2.41+ honours it over attr.tree).
      process.env.GIT_ATTR_SOURCE = head;
      try {
        await expectShown(path, bare, base, head);
        await expectShown(path, r.dir, base, head);
      } finally {
        delete process.env.GIT_ATTR_SOURCE;
      }
    },
  );

  it('control: without the pin, this git hides the code where it reads attributes from HEAD', async () => {
    const { base, head, bare } = await hidingChange('*.js binary\n');
    const plain = execFileSync(path, ['--git-dir=.', '--bare', 'diff', base, head, '--'], {
      cwd: bare,
      env: TEST_GIT_ENV,
      encoding: 'utf8',
    });
    const withConfig = execFileSync(
      path,
      ['--git-dir=.', '--bare', '-c', 'attr.tree=HEAD', 'diff', base, head, '--'],
      {
        cwd: bare,
        env: TEST_GIT_ENV,
        encoding: 'utf8',
      },
    );
    // 2.39 has no attribute source at all: nothing to hide with. 2.43+ honours attr.tree.
    expect(/Binary files/.test(withConfig)).toBe(atLeast(243));
    if (!atLeast(243)) expect(plain).toContain(`+${HIDDEN}`);
  });
});
