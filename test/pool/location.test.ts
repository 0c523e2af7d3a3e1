/**
 * Where a run's checkout lives: outside the repository and its git dir, so a
 * check or an agent started in it cannot walk up to `.revloop/` (the signing
 * key, the ledger), and Claude Code does not refuse its edits as edits under
 * `.git/`. A configured `pool.dir` inside either is refused with exit 12 and
 * nothing is recorded. Real git, a real `revloop review`, a real agent process.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  baseConfig,
  ensureBuilt,
  makeReviewRepo,
  type ReviewRepo,
  runCli,
  testEnv,
} from '../loop/helpers.js';

const scratch = mkdtempSync(join(tmpdir(), 'revloop-location-'));
const repos: ReviewRepo[] = [];
beforeAll(() => ensureBuilt(), 600_000);
afterAll(async () => {
  for (const r of repos) await r.cleanup();
  rmSync(scratch, { recursive: true, force: true });
});

// A reviewer that says where it ran and what it found walking up from there, then passes.
const LOOKER = `
const fs = require('node:fs'), path = require('node:path');
fs.readFileSync(0);
const found = [];
for (let d = process.cwd(); ; d = path.dirname(d)) {
  for (const n of ['.revloop', '.git/revloop']) if (fs.existsSync(path.join(d, n)) && fs.statSync(path.join(d, n)).isDirectory()) found.push(path.join(d, n));
  if (path.dirname(d) === d) break;
}
fs.writeFileSync(process.argv[1], JSON.stringify({ cwd: process.cwd(), repo: process.env.REVLOOP_REPO, found }));
process.stdout.write(JSON.stringify({ verdict: 'pass', findings: [] }));
`;

async function repoWith(pool: Record<string, unknown> | undefined, log: string): Promise<ReviewRepo> {
  const r = await makeReviewRepo({
    config: () =>
      baseConfig(
        { command: [process.execPath, '-e', LOOKER, log] },
        pool === undefined ? {} : { pool: { size: 2, ...pool } },
      ),
  });
  repos.push(r);
  return r;
}

describe('the checkout lives outside the repository and its git dir', { timeout: 300_000 }, () => {
  it('by default: the reviewer runs in the cache dir, and walking up it finds no .revloop', async () => {
    const log = join(scratch, 'default.json');
    const r = await repoWith(undefined, log);
    // The state dir exists (the ledger is there): walking up from inside the repository would find it.
    const res = await runCli(['review', '--head', 'topic', '--json'], { cwd: r.dir, env: testEnv() });
    expect(res.code, res.stderr).toBe(0);
    expect(existsSync(join(r.dir, '.revloop'))).toBe(true);
    const seen = JSON.parse(readFileSync(log, 'utf8')) as { cwd: string; repo: string; found: string[] };
    expect(seen.cwd).toBe(seen.repo);
    expect(seen.cwd.startsWith(`${r.dir}/`), seen.cwd).toBe(false);
    expect(seen.cwd.startsWith(join(testEnv().XDG_CACHE_HOME ?? '', 'revloop', 'pool')), seen.cwd).toBe(true);
    expect(seen.found).toEqual([]);
  });

  for (const [what, dir] of [
    ['in the git dir', '.git/checkouts'],
    ['in the working tree', 'build/checkouts'],
  ] as const) {
    it(`a pool.dir ${what} is refused in one line, exit 12, and no run is recorded`, async () => {
      const log = join(scratch, `${dir.replace(/\W/g, '-')}.json`);
      const r = await repoWith({ dir }, log);
      const res = await runCli(['review', '--head', 'topic'], { cwd: r.dir, env: testEnv() });
      expect(res.code, res.stdout + res.stderr).toBe(12);
      expect(res.stderr.trim().split('\n')).toHaveLength(1);
      expect(res.stderr).toContain(`pool.dir ${dir}`);
      expect(res.stderr).toContain('outside the repository');
      expect(existsSync(log), 'no reviewer ran').toBe(false);
      const status = await runCli(['status', '--json'], { cwd: r.dir, env: testEnv() });
      expect(JSON.stringify(status.json ?? {})).not.toContain('"clear"');
    });
  }

  it('a pool.dir outside that is a symbolic link into the repository is refused too', async () => {
    const log = join(scratch, 'link.json');
    const r = await repoWith(undefined, log);
    const link = join(scratch, 'link-to-repo');
    symlinkSync(r.dir, link);
    r.repo.git(['checkout', '-q', 'main']);
    r.repo.write(
      'revloop.config.yaml',
      JSON.stringify(
        baseConfig({ command: [process.execPath, '-e', LOOKER, log] }, { pool: { size: 2, dir: link } }),
      ),
    );
    r.repo.commit('pool through a link');
    r.repo.git(['checkout', '-q', 'topic']);
    r.repo.git(['rebase', '-q', 'main']);
    const res = await runCli(['review', '--head', 'topic'], { cwd: r.dir, env: testEnv() });
    expect(res.code, res.stdout + res.stderr).toBe(12);
    expect(res.stderr).toContain('inside the repository');
    expect(existsSync(log)).toBe(false);
  });
});
