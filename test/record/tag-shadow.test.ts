/**
 * A tag cannot stand in for the trusted ref (docs/security.md): git reads a
 * short name as a tag before a remote-tracking branch, so a tag `origin/main`
 * pushed with a change on a commit whose config lists the attacker's key
 * would be the ref `verify --keys-from origin/main` and `review --base
 * origin/main` trust. A short name that names two refs is refused (exit 12);
 * a full refname means exactly that ref. Real git, the real CLI.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UntrustedInputError } from '../../src/core/errors.js';
import { createGit } from '../../src/git/index.js';
import { resolveUserRef } from '../../src/git/user-ref.js';
import { cli, ensureBuilt, type Fixture, makeFixture } from './setup.js';

let fx: Fixture;
let attacker: string;
beforeAll(async () => {
  ensureBuilt();
  fx = await makeFixture();
  const r = fx.repo;
  // The target branch as CI fetched it.
  r.git(['update-ref', 'refs/remotes/origin/main', fx.base]);
  // The attacker's commit: a config that lists their own key, tagged `origin/main` and pushed with the change.
  r.git(['checkout', '-q', '-b', 'evil', fx.base]);
  r.write('evil.pub', readFileSync(fx.otherPub));
  r.write(
    'revloop.config.yaml',
    'criteria: REVIEW.md\nreviewers:\n  - { name: correctness, command: [node, r.mjs] }\nkeys:\n  - evil.pub\n',
  );
  attacker = r.commit('a config that trusts my key');
  r.git(['tag', 'origin/main', attacker]);
  r.git(['checkout', '-q', 'feature']);
});
afterAll(() => fx?.repo.cleanup());

describe('resolveUserRef', () => {
  it('refuses a short name git finds in two places, and a full refname means exactly that ref', async () => {
    const git = createGit();
    const dir = fx.repo.dir;
    await expect(resolveUserRef(git, dir, 'origin/main', '--keys-from')).rejects.toThrow(UntrustedInputError);
    await expect(resolveUserRef(git, dir, 'origin/main', '--keys-from')).rejects.toThrow(
      /^--keys-from origin\/main is ambiguous: it names refs\/tags\/origin\/main and refs\/remotes\/origin\/main; pass the full refname/,
    );
    expect(await resolveUserRef(git, dir, 'refs/remotes/origin/main', '--base')).toEqual({
      sha: fx.base,
      refname: 'refs/remotes/origin/main',
    });
    expect(await resolveUserRef(git, dir, 'refs/tags/origin/main', '--base')).toMatchObject({
      sha: attacker,
    });
    expect(await resolveUserRef(git, dir, 'main', '--base')).toEqual({
      sha: fx.base,
      refname: 'refs/heads/main',
    });
    expect((await resolveUserRef(git, dir, 'refs/remotes/origin/main~0', '--base')).sha).toBe(fx.base);
    expect((await resolveUserRef(git, dir, 'HEAD', '--head')).sha).toBe(fx.fix);
    expect((await resolveUserRef(git, dir, fx.base, '--base')).sha).toBe(fx.base);
    // A full name git does not have never falls through to another spelling of it.
    await expect(resolveUserRef(git, dir, 'refs/main', '--base')).rejects.toMatchObject({
      code: 'unknown_ref',
    });
  });
});

describe('the CLI refuses the shadowed ref', () => {
  it('verify --keys-from origin/main with a tag origin/main: exit 12, not a record trusted by the tag', async () => {
    // A record for the checkout signed with the attacker's key.
    const rec = fx.record(await fx.statement(), fx.other);
    const shadowed = cli(['verify', rec, '--keys-from', 'origin/main'], fx.repo.dir);
    expect(shadowed.code, shadowed.stdout + shadowed.stderr).toBe(12);
    expect(shadowed.stderr.trim().split('\n')).toHaveLength(1);
    expect(shadowed.stderr).toMatch(/untrusted_input: --keys-from origin\/main is ambiguous/);
    // The full refname is the verifier's branch: the attacker's key is unknown there.
    const full = cli(['verify', rec, '--keys-from', 'refs/remotes/origin/main'], fx.repo.dir);
    expect(full.code, full.stderr).toBe(4);
    // And the team's record verifies under it.
    const good = cli(
      ['verify', fx.record(await fx.statement()), '--keys-from', 'refs/remotes/origin/main'],
      fx.repo.dir,
    );
    expect(good.code, good.stderr).toBe(0);
  });

  it('review --base origin/main with a tag origin/main: exit 12 before anything is admitted', () => {
    const res = cli(['review', '--base', 'origin/main', '--store', 'memory:'], fx.repo.dir);
    expect(res.code, res.stdout + res.stderr).toBe(12);
    expect(res.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(
        /^revloop: --base origin\/main is ambiguous: it names refs\/tags\/origin\/main and/,
      ),
    ]);
  });
});
