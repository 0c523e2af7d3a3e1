/**
 * Fix bundles over real git: a bundle names the fix commit, needs only the
 * admitted head, and imports into the one private ref asked for; whatever a
 * bundle from the ledger holds (another commit, another ref name, a tag,
 * garbage, a prerequisite this clone lacks), it is refused in one line, the
 * ref is gone and no other ref or tag appears.
 */
import { execFileSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { createGit } from '../../src/git/index.js';
import { makeRepo, TEST_GIT_ENV, type TestRepo } from '../helpers/git-repo.js';

const git = createGit();
const made: TestRepo[] = [];
afterEach(async () => {
  for (const r of made.splice(0)) await r.cleanup();
});

/** `a` with base → head → fix (the fix on a detached HEAD), and `b`, a repository with head only, on branch keep. */
async function twoMachines() {
  const a = await makeRepo();
  made.push(a);
  a.write('f.txt', 'base\n');
  const base = a.commit('base');
  a.write('f.txt', 'head\n');
  const head = a.commit('head');
  a.git(['checkout', '-q', '--detach']);
  a.write('f.txt', 'fixed\n');
  const fix = a.commit('fix');
  const b = await makeRepo();
  made.push(b);
  b.git(['fetch', '-q', '--no-tags', a.dir, `${head}:refs/heads/keep`]);
  return { a, b, base, head, fix };
}

const bundle = (dir: string, args: string[]): Buffer =>
  execFileSync('git', ['-C', dir, 'bundle', 'create', '-', ...args], { env: TEST_GIT_ENV, stdio: 'pipe' });
const refs = (r: TestRepo) => r.git(['for-each-ref', '--format=%(refname)']).split('\n').filter(Boolean);
const REF = 'refs/revloop/imports/run1/x';

describe('fix bundles', () => {
  it('a bundle of the fix imports into the private ref only, and another clone then has the commit', async () => {
    const { a, b, head, fix } = await twoMachines();
    const bytes = await git.bundleFix(a.dir, fix, head);
    expect(await git.commitExists(b.dir, fix)).toBe(false);
    await git.importFixBundle(b.dir, bytes, fix, REF);
    expect(await git.commitExists(b.dir, fix)).toBe(true);
    expect(b.git(['rev-parse', REF])).toBe(fix);
    expect(refs(b)).toEqual(['refs/heads/keep', REF]);
  });

  it('is refused, leaving no ref, when it yields another commit, names another ref, holds a tag or is not a bundle', async () => {
    const { a, b, head, fix } = await twoMachines();
    a.git(['tag', '-a', '-m', 'x', 'v1', fix]);
    const cases: [string, Buffer, RegExp][] = [
      ['another commit', bundle(a.dir, ['HEAD', `^${head}`]), new RegExp(`yields commit ${fix}`)],
      ['another ref name', bundle(a.dir, ['v1', `^${head}`]), /refused: /],
      ['garbage', Buffer.from('not a bundle\n'), /refused: /],
    ];
    for (const [name, bytes, why] of cases) {
      // The ledger names `head` where the bundle yields the fix: any id but the bundle's own.
      const expected = name === 'another commit' ? head : fix;
      const err = await git.importFixBundle(b.dir, bytes, expected, REF).then(
        () => null,
        (e: Error) => e,
      );
      expect(err, name).toMatchObject({ code: 'fix_bundle_refused' });
      expect(err?.message, name).toMatch(why);
      expect(err?.message.includes('\n'), name).toBe(false);
      expect(refs(b), name).toEqual(['refs/heads/keep']);
    }
  });

  it('is refused when this clone lacks the commit it needs', async () => {
    const { a, head, fix } = await twoMachines();
    const bytes = await git.bundleFix(a.dir, fix, head);
    const empty = await makeRepo();
    made.push(empty);
    const err = await git.importFixBundle(empty.dir, bytes, fix, REF).catch((e: Error) => e);
    expect(err).toMatchObject({ code: 'fix_bundle_refused' });
    expect(refs(empty)).toEqual([]);
  });

  it('never writes outside refs/revloop/', async () => {
    const { a, b, head, fix } = await twoMachines();
    const bytes = await git.bundleFix(a.dir, fix, head);
    await expect(git.importFixBundle(b.dir, bytes, fix, 'refs/heads/keep')).rejects.toThrow(
      /not a private ref/,
    );
    expect(b.git(['rev-parse', 'refs/heads/keep'])).toBe(head);
  });
});
