/**
 * verify never follows a symlink to a key or a record, and never trusts a key
 * the change brings under any path (docs/security.md). Each case is a change
 * committed in a real repository, a record of its head signed with the
 * change author's key, and the real CLI.
 */
import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { generateKeyPair, loadSigner } from '../../src/record/keys.js';
import { cli, ensureBuilt, type Fixture, makeFixture } from './setup.js';

let fx: Fixture;
let evilPem: Buffer;
beforeAll(async () => {
  ensureBuilt();
  fx = await makeFixture();
  evilPem = readFileSync(fx.otherPub);
});
afterAll(() => fx?.repo.cleanup());
afterEach(() => {
  // Each case starts again from the fixture's checkout, with no local state.
  fx.repo.git(['checkout', '-q', '-f', 'feature']);
  fx.repo.git(['clean', '-q', '-f', '-f', '-d', '-x']);
});

/** Commits the change's files on a branch off the fixture's head; returns a record of it signed with the attacker's key. */
async function attackerRecord(
  name: string,
  files: Record<string, string | Buffer>,
  links: Record<string, string> = {},
) {
  const r = fx.repo;
  r.git(['checkout', '-q', '-b', name, fx.fix]);
  for (const [p, c] of Object.entries(files)) r.write(p, c);
  for (const [p, target] of Object.entries(links)) {
    mkdirSync(join(r.dir, p, '..'), { recursive: true });
    symlinkSync(target, join(r.dir, p));
  }
  r.git(['add', '-f', '-A']);
  const head = r.commit(`${name}: bring my own key`);
  return fx.record(await fx.statement({ head }), fx.other);
}

const verify = (rec: string, ...extra: string[]) => cli(['verify', rec, ...extra], fx.repo.dir);

describe('keys are never read through a link, nor taken from the change', () => {
  it('a committed `.revloop -> evilkeys/` symlink does not make the change key trusted', async () => {
    const rec = await attackerRecord(
      'linked-state',
      { 'evilkeys/keys/evil.pub': evilPem },
      { '.revloop': 'evilkeys' },
    );
    for (const extra of [[], ['--keys-from', 'refs/heads/main']]) {
      const r = verify(rec, ...extra);
      expect(r.code, r.stdout + r.stderr).toBe(4);
      expect(r.stderr).toMatch(/unknown_key.*\.revloop \(a symlink: never followed\)/);
    }
  });

  it('a key file that is a link in a real .revloop/keys is never followed', async () => {
    const rec = await attackerRecord('linked-key', { 'tools/evil.pub': evilPem });
    mkdirSync(join(fx.repo.dir, '.revloop/keys'), { recursive: true });
    symlinkSync(join(fx.repo.dir, 'tools/evil.pub'), join(fx.repo.dir, '.revloop/keys/evil.pub'));
    const r = verify(rec);
    expect(r.code, r.stdout + r.stderr).toBe(4);
    expect(r.stderr).toMatch(/\.revloop\/keys\/evil\.pub \(a symlink: never followed\)/);
  });

  it('a local key the change also commits under another path is the change vouching for itself', async () => {
    const rec = await attackerRecord('copied-key', { 'docs/ops/evil.pub': evilPem });
    // Something in the job copied it where local keys live (as a build step of the change could).
    mkdirSync(join(fx.repo.dir, '.revloop/keys'), { recursive: true });
    writeFileSync(join(fx.repo.dir, '.revloop/keys/evil.pub'), evilPem);
    const r = verify(rec);
    expect(r.code, r.stdout + r.stderr).toBe(4);
    expect(r.stderr).toMatch(/\.revloop\/keys\/evil\.pub \(added or changed by the change under review\)/);
    // The machine's own key, which no change brings, is still trusted.
    rmSync(join(fx.repo.dir, '.revloop/keys/evil.pub'));
    const mine = loadSigner(generateKeyPair(join(fx.repo.dir, '.revloop/keys/mine')).privatePath);
    const own = fx.record(await fx.statement({ head: fx.repo.git(['rev-parse', 'HEAD']) }), mine);
    const ok = verify(own);
    expect(ok.code, ok.stderr).toBe(0);
  });

  it('a listed key whose entry at the trusted commit is a symlink is refused', async () => {
    const r = fx.repo;
    r.git(['checkout', '-q', '-b', 'trusted-link', fx.base]);
    symlinkSync('team.pub', join(r.dir, 'keys/link.pub'));
    r.write(
      'revloop.config.yaml',
      'criteria: REVIEW.md\nreviewers:\n  - { name: correctness, command: [node, r.mjs] }\nkeys:\n  - keys/link.pub\n',
    );
    const trusted = r.commit('keys through a link');
    r.git(['checkout', '-q', 'feature']);
    const res = verify(
      fx.record(await fx.statement()),
      '--keys-from',
      trusted,
      '--target',
      'refs/heads/main',
    );
    expect(res.code, res.stdout + res.stderr).toBe(4);
    expect(res.stderr).toMatch(/keys\/link\.pub \(a symlink: never followed\)/);
  });

  it('a record that is a symlink is not read', async () => {
    const rec = fx.record(await fx.statement());
    const link = join(fx.repo.dir, 'linked-record.json');
    symlinkSync(rec, link);
    const r = verify(link);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/linked-record\.json is a symlink: never followed/);
  });
});
