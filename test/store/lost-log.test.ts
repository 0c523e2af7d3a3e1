/**
 * A ledger whose write-ahead log was deleted or cut short after a `kill -9`
 * says so: a real process opens the SQLite ledger (its schema and a run are
 * then in the log alone) and is killed with SIGKILL; the log is removed or
 * truncated, and `revloop status` exits 5 naming the log, instead of reading
 * the ledger as empty ("no runs yet") or as needing an upgrade.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync, truncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, makeReviewRepo, reposRemovedAfterAll, runCli } from '../loop/helpers.js';

const repos = reposRemovedAfterAll();
const dirs: string[] = [];
beforeAll(() => ensureBuilt(), 120_000);
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const STORE_JS = join(import.meta.dirname, '../../dist/store/sqlite/store.js');

/** A ledger written by a process killed before any checkpoint: everything it wrote is in its log. */
function killedWriter(): string {
  const dir = mkdtempSync(join(tmpdir(), 'revloop-lost-log-'));
  dirs.push(dir);
  const path = join(dir, 'ledger.db');
  const script = `
    const { openSqliteStore } = await import(${JSON.stringify(STORE_JS)});
    openSqliteStore(${JSON.stringify(path)});
    process.kill(process.pid, 'SIGKILL');`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script]);
  expect(r.signal).toBe('SIGKILL');
  expect(statSync(`${path}-wal`).size).toBeGreaterThan(0);
  return path;
}

describe('a ledger whose log was lost after a kill -9', () => {
  it.each(['deleted', 'cut short'])(
    'its log %s: status exits 5 naming the log, never "no runs yet"',
    async (how) => {
      const r = await makeReviewRepo({ config: { reviewers: [{ name: 'c', command: ['true'] }] } });
      repos.push(r);
      const path = killedWriter();
      if (how === 'deleted') rmSync(`${path}-wal`);
      else truncateSync(`${path}-wal`, 100);
      const res = await runCli(['status', '--store', `sqlite:${path}`], { cwd: r.dir });
      expect(res.stdout).not.toContain('no runs yet');
      expect(res.code, res.stderr).toBe(5);
      expect(res.stderr.trim().split('\n')).toHaveLength(1);
      expect(res.stderr).toContain(`${path}-wal is ${how === 'deleted' ? 'missing' : 'cut short'}`);
      // Nothing was rebuilt over the evidence: the index still says what the log held.
      expect(existsSync(`${path}-shm`)).toBe(true);
    },
  );

  it('an intact log is read as usual', async () => {
    const r = await makeReviewRepo({ config: { reviewers: [{ name: 'c', command: ['true'] }] } });
    repos.push(r);
    const path = killedWriter();
    const res = await runCli(['status', '--store', `sqlite:${path}`], { cwd: r.dir });
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toContain('no runs yet');
  });
});
