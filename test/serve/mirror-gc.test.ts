/**
 * `revloop gc` prunes the machine's repository mirrors nobody used for two
 * weeks (their last-use mark), and keeps a recent one.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { makeRepo, type TestRepo } from '../helpers/git-repo.js';
import { ensureBuilt, runCli, testEnv } from '../loop/helpers.js';

beforeAll(() => ensureBuilt(), 600_000);
let repo: TestRepo;
let cache: string;
afterAll(async () => {
  await repo?.cleanup();
  rmSync(cache, { recursive: true, force: true });
});

it('removes the mirror unused for two weeks and keeps the one used yesterday', {
  timeout: 120_000,
}, async () => {
  repo = await makeRepo();
  repo.write('a.txt', 'a\n');
  repo.commit('base');
  cache = mkdtempSync(join(tmpdir(), 'revloop-gc-mirrors-'));
  const mirrors = join(cache, 'revloop', 'mirrors');
  const mark = (name: string, at: number) => {
    mkdirSync(join(mirrors, name), { recursive: true });
    writeFileSync(join(mirrors, name, 'revloop-last-use'), `${at}\n`);
  };
  mark('old-000000000000.git', Date.now() - 15 * 86_400_000);
  mark('recent-000000000000.git', Date.now() - 86_400_000);
  const res = await runCli(['gc', '--json'], { cwd: repo.dir, env: testEnv({ XDG_CACHE_HOME: cache }) });
  expect(res.code, res.stderr).toBe(0);
  expect(res.json?.mirrors).toEqual({ removed: [join(mirrors, 'old-000000000000.git')], held: [] });
  // The lock file stays: removing it could let two fetches hold two locks of one mirror.
  expect(readdirSync(mirrors).filter((n) => n.endsWith('.git'))).toEqual(['recent-000000000000.git']);
});
