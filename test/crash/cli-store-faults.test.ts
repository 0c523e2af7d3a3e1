/**
 * Storage faults at the command line (project issue 5, requirement 6):
 * `revloop review` against a corrupt ledger, or one locked by another process
 * past the busy timeout, exits 5 with one line on stderr and writes nothing:
 * no run, no record, no prompt, no worktree, no ref, no change to the ledger.
 */
import { spawn } from 'node:child_process';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeAll, expect, test } from 'vitest';
import { openStore } from '../../src/store/index.js';
import { ensureBuilt, MAIN_JS } from './cli.js';
import { buildTemplate, git, gitEnv } from './template.mjs';

beforeAll(ensureBuilt, 600_000);

let root = '';
afterEach(() => {
  if (root) rmSync(root, { recursive: true, force: true });
  root = '';
});

function repo(): string {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'revloop-cli-faults-')));
  const dir = join(root, 'repo');
  buildTemplate(dir, { bugs: 1 });
  return dir;
}

function review(dir: string): Promise<{ code: number | null; stdout: string; stderr: string; ms: number }> {
  return new Promise((resolve) => {
    const t0 = Date.now();
    const child = spawn(process.execPath, [MAIN_JS, 'review', '--base', 'main', '--head', 'feature'], {
      cwd: dir,
      env: { ...gitEnv(), CRASH_LOG: join(root, 'agents.log') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b) => {
      stdout += b;
    });
    child.stderr.on('data', (b) => {
      stderr += b;
    });
    child.on('close', (code) => resolve({ code, stdout, stderr, ms: Date.now() - t0 }));
  });
}

/** Everything revloop could have written, besides the ledger's own bytes. */
function footprint(dir: string) {
  return {
    state: readdirSync(join(dir, '.revloop'), { recursive: true }).map(String).sort(),
    refs: git(dir, ['for-each-ref', '--format=%(refname)']),
    worktrees: git(dir, ['worktree', 'list', '--porcelain']),
    status: git(dir, ['status', '--porcelain', '--ignored']),
  };
}

test('review against a corrupt ledger exits 5 with one line and writes nothing', async () => {
  const dir = repo();
  mkdirSync(join(dir, '.revloop'));
  const ledger = join(dir, '.revloop', 'ledger.db');
  const junk = Buffer.alloc(32768, 0xab);
  junk.write('SQLite format 3\0', 0, 'latin1');
  writeFileSync(ledger, junk);
  const before = footprint(dir);

  const r = await review(dir);
  expect(r.code).toBe(5);
  expect(r.stdout).toBe('');
  expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
  expect(r.stderr).toMatch(/^revloop: .*ledger/i);
  expect(readFileSync(ledger).equals(junk)).toBe(true);
  expect(footprint(dir)).toEqual(before);
  expect(() => readFileSync(join(root, 'agents.log'))).toThrow();
});

test('review against a ledger locked by another process past the busy timeout exits 5 and writes nothing', async () => {
  const dir = repo();
  const store = await openStore('sqlite:.revloop/ledger.db', { repoRoot: dir });
  await store.close();
  const ledger = join(dir, '.revloop', 'ledger.db');
  const holder = spawn(
    process.execPath,
    [join(import.meta.dirname, '..', 'store', 'fixtures', 'lock-holder.mjs'), ledger],
    {
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  );
  try {
    await new Promise<void>((res, rej) => {
      holder.stdout.once('data', () => res());
      holder.once('exit', (c) => rej(new Error(`lock holder exited ${c}`)));
    });
    const before = footprint(dir);
    const r = await review(dir);
    expect(r.code).toBe(5);
    expect(r.stdout).toBe('');
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/locked/);
    // It waited for the lock (the busy timeout) before giving up.
    expect(r.ms).toBeGreaterThanOrEqual(1000);
    expect(footprint(dir)).toEqual(before);
  } finally {
    holder.stdin.end();
    await new Promise((r) => holder.once('exit', r));
  }
  const db = new Database(ledger, { readonly: true });
  try {
    expect(db.prepare('SELECT count(*) AS n FROM runs').get()).toEqual({ n: 0 });
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
  } finally {
    db.close();
  }
  expect(() => readFileSync(join(root, 'agents.log'))).toThrow();
});
