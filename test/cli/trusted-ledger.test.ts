/**
 * The change cannot choose the ledger or the pool (docs/security.md): `store:`
 * and `pool:` come from --store, REVLOOP_STORE or the config at the trusted
 * commit; a working-tree config that names another is refused (exit 12)
 * before anything opens or connects to it. Real CLI, real git, real SQLite,
 * and a real loopback TCP server standing in for an attacker's PostgreSQL.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  baseConfig,
  type CliResult,
  ensureBuilt,
  findings,
  HEAD_FILE,
  makeReviewRepo,
  pass,
  raceFinding,
  reposRemovedAfterAll,
  runCli,
  testEnv,
} from '../loop/helpers.js';

const repos = reposRemovedAfterAll();
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
beforeAll(() => ensureBuilt(), 600_000);

function tempDir(): string {
  const d = realpathSync(mkdtempSync(join(tmpdir(), 'revloop-trusted-ledger-')));
  dirs.push(d);
  return d;
}

/** The change's config: the base's, plus `extra` (as the change's author would edit it). */
async function repoWithChangedConfig(extra: Record<string, unknown>) {
  let config: Record<string, unknown> = {};
  const r = await makeReviewRepo({
    config: (a) => {
      config = baseConfig(a);
      return config;
    },
    change: { 'src/calc.js': HEAD_FILE },
  });
  repos.push(r);
  r.repo.write('revloop.config.yaml', JSON.stringify({ ...config, ...extra }, null, 2));
  r.repo.commit('change: the config names its own ledger');
  return r;
}

/** One refusal line on stderr, exit 12, never a clear. */
function expectRefused(res: CliResult, pattern: RegExp) {
  expect(res.code, res.stderr + res.stdout).toBe(12);
  const lines = res.stderr.trim().split('\n');
  expect(lines, res.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(pattern);
  expect(res.stdout).not.toMatch(/clear/);
}

describe('the ledger comes from the trusted side', () => {
  it('a prepared ledger the change names, holding a clear run for its admission key, is never used', async () => {
    const evil = join(tempDir(), 'evil.db');
    const r = await repoWithChangedConfig({ store: `sqlite:${evil}` });
    // The attacker prepares the ledger: the same revision, admitted and reviewed there, its run edited to clear.
    r.plan({ reviewer: [{ reply: findings(raceFinding()) }] });
    const prepared = await runCli(['review', '--head', 'topic', '--store', `sqlite:${evil}`, '--json'], {
      cwd: r.dir,
    });
    expect(prepared.json, prepared.stderr).toMatchObject({ status: 'completed' });
    const db = new Database(evil);
    db.prepare("UPDATE runs SET outcome = 'clear', stop_reason = 'clear'").run();
    db.close();
    const callsBefore = r.counts().reviewer ?? 0;

    // The real job names no ledger: the trusted default. The change's `store:` must not be read.
    r.plan({ reviewer: [{ reply: findings(raceFinding()) }] });
    const res = await runCli(['review', '--head', 'topic', '--json'], { cwd: r.dir });
    expectRefused(
      res,
      /revloop\.config\.yaml in the working tree sets store: sqlite:.*evil\.db.*the default/,
    );
    expect(r.counts().reviewer ?? 0).toBe(callsBefore);
  });

  it('the trusted value repeated in the working tree is fine; the flag decides over both', async () => {
    const ledger = join(tempDir(), 'team.db');
    const r = await repoWithChangedConfig({ store: `sqlite:${ledger}` });
    r.plan({ reviewer: [{ reply: pass }] });
    const res = await runCli(['review', '--head', 'topic', '--json'], {
      cwd: r.dir,
      env: testEnv({ REVLOOP_STORE: `sqlite:${ledger}` }),
    });
    expect(res.json, res.stderr).toMatchObject({ status: 'completed' });
    // The same checkout, with another ledger chosen by the job: the working tree's differs, refused.
    const other = await runCli(['status', '--store', `sqlite:${join(tempDir(), 'x.db')}`], { cwd: r.dir });
    expectRefused(other, /sets store: .*team\.db.*from --store/);
  });

  it('a postgres:// URL in the working tree is never connected to, and PGPASSWORD never leaves', async () => {
    const seen = { connections: 0, bytes: Buffer.alloc(0) };
    const server: Server = createServer((sock) => {
      seen.connections++;
      sock.on('data', (d) => {
        seen.bytes = Buffer.concat([seen.bytes, d]);
        // Ask for the password in cleartext, as an attacker's server would.
        sock.write(Buffer.from([0x52, 0, 0, 0, 8, 0, 0, 0, 3]));
      });
      sock.on('error', () => {});
    });
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    try {
      const port = (server.address() as { port: number }).port;
      const r = await repoWithChangedConfig({ store: `postgres://ci@127.0.0.1:${port}/x` });
      const env = testEnv({ PGPASSWORD: 'pg-secret-never-sent' });
      for (const args of [
        ['status'],
        ['export', 'r0', '--format', 'markdown'],
        ['review', '--head', 'topic'],
      ]) {
        const res = await runCli(args, { cwd: r.dir, env, timeoutMs: 30_000 });
        expectRefused(res, /sets store: postgres:\/\/ci@127\.0\.0\.1:\d+\/x/);
      }
      expect(seen.connections).toBe(0);
      expect(seen.bytes.toString('latin1')).not.toContain('pg-secret-never-sent');
    } finally {
      await new Promise((ok) => server.close(ok));
    }
  });

  it('a working-tree pool: other than the trusted one is refused', async () => {
    const r = await repoWithChangedConfig({ pool: { dir: join(tempDir(), 'pool'), size: 2 } });
    r.plan({ reviewer: [{ reply: pass }] });
    const res = await runCli(['review', '--head', 'topic'], { cwd: r.dir });
    expectRefused(res, /sets pool: .*but the pool in use is the default/);
    expect(r.counts().reviewer ?? 0).toBe(0);
  });
});

describe('the state directory is never the change', () => {
  it('a .revloop symlink is refused', async () => {
    const r = await makeReviewRepo({ config: (a) => baseConfig(a) });
    repos.push(r);
    const elsewhere = tempDir();
    symlinkSync(elsewhere, join(r.dir, '.revloop'));
    const res = await runCli(['status'], { cwd: r.dir });
    expectRefused(res, /\.revloop is a symlink/);
  });

  it('a .revloop the change tracks in git is refused', async () => {
    const r = await makeReviewRepo({ config: (a) => baseConfig(a) });
    repos.push(r);
    mkdirSync(join(r.dir, '.revloop', 'keys'), { recursive: true });
    r.repo.write('.revloop/keys/evil.pub', 'not a key\n');
    r.repo.git(['add', '-f', '.revloop/keys/evil.pub']);
    r.repo.commit('change: bring my own state');
    r.plan({ reviewer: [{ reply: pass }] });
    for (const args of [['status'], ['review', '--head', 'topic']]) {
      const res = await runCli(args, { cwd: r.dir });
      expectRefused(res, /\.revloop\/keys\/evil\.pub is tracked by git in the checked-out change/);
    }
    expect(r.counts().reviewer ?? 0).toBe(0);
  });
});
