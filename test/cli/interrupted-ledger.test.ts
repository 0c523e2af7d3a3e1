/**
 * A ledger whose creation was killed before it was switched to WAL (the
 * kill harness met one in 1,000 trials): SQLite left a hot rollback journal,
 * which only a writer can roll back. Every command that opens the ledger
 * read-only says so in one line and exits 5 (as for a ledger not yet
 * migrated, which a read-only open cannot upgrade either), writing nothing;
 * the next command that writes rolls it back and works. Real CLI processes,
 * a real child process killed with SIGKILL mid-transaction.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  baseConfig,
  ensureBuilt,
  makeReviewRepo,
  pass,
  ROOT,
  reposRemovedAfterAll,
  runCli,
} from '../loop/helpers.js';

const repos = reposRemovedAfterAll();
beforeAll(() => ensureBuilt(), 120_000);

const KILLED = join(ROOT, 'test/fixtures/ledger/killed-mid-write.mjs');

async function interruptedLedger() {
  const r = await makeReviewRepo({ config: (a) => baseConfig(a) });
  repos.push(r);
  r.plan({ reviewer: [{ reply: pass }] });
  const ledger = join(r.dir, '.revloop', 'ledger.db');
  mkdirSync(join(r.dir, '.revloop'), { recursive: true });
  const child = spawnSync(process.execPath, [KILLED, ledger], { cwd: ROOT });
  expect(child.signal).toBe('SIGKILL');
  expect(existsSync(`${ledger}-journal`)).toBe(true);
  return { r, ledger };
}

describe('a ledger killed mid-write before WAL (a hot rollback journal)', () => {
  it('read-only commands: one line naming the interrupted write and what recovers it, exit 5, nothing changed', async () => {
    const { r, ledger } = await interruptedLedger();
    const before = { main: readFileSync(ledger), journal: readFileSync(`${ledger}-journal`) };
    // (`gc` opens the ledger only when it has checkouts of its own to sweep; `verify` never does.)
    for (const args of [['status'], ['status', '--json'], ['export', 'run-1'], ['replay', 'run-1']]) {
      const res = await runCli(args, { cwd: r.dir });
      expect(res.code, `${args.join(' ')}: ${res.stderr}`).toBe(5);
      const lines = res.stderr.trim().split('\n');
      expect(lines, res.stderr).toHaveLength(1);
      expect(lines[0]).toContain(`the ledger ${ledger} is read-only: a write to it was interrupted`);
      expect(lines[0]).toContain(`${ledger}-journal`);
      expect(lines[0]).toContain('revloop review');
      expect(lines[0]).not.toMatch(/corrupt/);
    }
    expect(readFileSync(ledger).equals(before.main)).toBe(true);
    expect(readFileSync(`${ledger}-journal`).equals(before.journal)).toBe(true);
  });

  it('the next command that writes rolls the journal back and works; status then reads the ledger', async () => {
    const { r, ledger } = await interruptedLedger();
    const review = await runCli(['review', '--head', 'topic', '--json'], { cwd: r.dir });
    expect(review.code, review.stderr).toBe(0);
    expect(review.json).toMatchObject({ status: 'completed', outcome: 'clear' });
    expect(existsSync(`${ledger}-journal`)).toBe(false);
    const status = await runCli(['status', '--json'], { cwd: r.dir });
    expect(status.code, status.stderr).toBe(0);
    expect(JSON.stringify(status.json)).toContain(String(review.json?.runId));
  });
});
