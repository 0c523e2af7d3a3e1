/**
 * Everything verify trusts is chosen by the verifier (docs/security.md, the
 * verify audit): what a record says before its signature checks out (its
 * base, its config path) may only narrow what is accepted. A forged record
 * that names the attacker's own commit as its base, or an arbitrary file of
 * the trusted commit as its config, is refused; so is a push through a
 * `.revloop` that is a link. Real git, the real CLI, real pushes.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKeyPair, loadSigner } from '../../src/record/keys.js';
import { buildStatement } from '../../src/record/statement.js';
import { TEST_GIT_ENV } from '../helpers/git-repo.js';
import { cli, ensureBuilt, type Fixture, makeFixture, pushRunningHooks } from './setup.js';

let fx: Fixture;
let remote: string;
beforeAll(async () => {
  ensureBuilt();
  fx = await makeFixture();
  remote = mkdtempSync(join(tmpdir(), 'revloop-inputs-remote-'));
  execFileSync('git', ['init', '-q', '--bare', remote], { env: TEST_GIT_ENV });
  fx.repo.git(['remote', 'add', 'origin', remote]);
});
afterAll(async () => {
  await fx?.repo.cleanup();
  rmSync(remote, { recursive: true, force: true });
});

/** A record of the checkout whose snapshot says what the forger wants, signed with `signer`. */
async function forged(snapshot: Record<string, unknown>, signer: Parameters<Fixture['record']>[1]) {
  const r = fx.report();
  r.run.snapshot = { ...r.run.snapshot, ...snapshot };
  return fx.record(buildStatement(r, { finalDiffDigest: await fx.diffDigest(fx.fix) }), signer);
}

const verify = (rec: string, ...extra: string[]) => cli(['verify', rec, ...extra], fx.repo.dir);

describe("a record's unsigned words choose nothing", () => {
  it("a base of the forger's own commit, whose config lists the forger's key, is not where keys are read", async () => {
    const r = fx.repo;
    r.git(['checkout', '-q', '-b', 'forger', fx.base]);
    r.write('forger.pub', readFileSync(fx.otherPub));
    r.write('revloop.config.yaml', 'criteria: REVIEW.md\nreviewers: []\nkeys:\n  - forger.pub\n');
    const own = r.commit('a config that trusts my key');
    r.git(['checkout', '-q', 'feature']);
    const rec = await forged({ base: own }, fx.other);
    const res = verify(rec);
    expect(res.code, res.stdout + res.stderr).toBe(4);
    expect(res.stderr).toMatch(/unknown_key/);
  });

  it('a config path naming another file of the trusted commit with its own keys: list is not read', async () => {
    const r = fx.repo;
    // A test fixture on the trusted branch: a config and a key pair, private half committed.
    const dir = mkdtempSync(join(tmpdir(), 'revloop-fixture-key-'));
    const pair = generateKeyPair(join(dir, 'fixture'));
    r.git(['checkout', '-q', '-b', 'trusted-with-fixtures', fx.base]);
    r.write('test/fixtures/fixture.pub', readFileSync(pair.publicPath));
    r.write(
      'test/fixtures/revloop.config.yaml',
      'criteria: REVIEW.md\nkeys:\n  - test/fixtures/fixture.pub\n',
    );
    const trusted = r.commit('test fixtures');
    r.git(['checkout', '-q', 'feature']);
    const rec = await forged(
      { configPath: 'test/fixtures/revloop.config.yaml' },
      loadSigner(pair.privatePath),
    );
    const res = verify(rec, '--keys-from', trusted, '--target', 'refs/heads/main');
    expect(res.code, res.stdout + res.stderr).toBe(4);
    rmSync(dir, { recursive: true, force: true });
  });

  it('with no trusted ref at all and no --key, verify says what to pass (exit 2)', async () => {
    const rec = fx.record(await fx.statement());
    fx.repo.git(['branch', '-m', 'main', 'trunk']);
    try {
      const res = verify(rec);
      expect(res.code, res.stdout + res.stderr).toBe(2);
      expect(res.stderr).toMatch(/no trusted ref to read keys from .*pass --keys-from REF/);
      expect(verify(rec, '--keys-from', 'refs/heads/trunk').code).toBe(0);
    } finally {
      fx.repo.git(['branch', '-m', 'trunk', 'main']);
    }
  });
});

describe('the pre-push hook', () => {
  it('refuses to read records through a .revloop that is a link', async () => {
    expect(cli(['hook', 'install'], fx.repo.dir).code).toBe(0);
    const elsewhere = mkdtempSync(join(tmpdir(), 'revloop-linked-state-'));
    symlinkSync(elsewhere, join(fx.repo.dir, '.revloop'));
    try {
      const res = pushRunningHooks(fx.repo.dir, 'feature');
      expect(res.code).not.toBe(0);
      expect(res.stderr).toContain('.revloop or .revloop/records is a symlink');
    } finally {
      rmSync(join(fx.repo.dir, '.revloop'));
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });
});
