/**
 * Everything a run produced is every machine's: the fix commits are kept in
 * the ledger as git bundles (checked on import against the commit id the
 * ledger names) and the signed record as its envelope. Three clones of one
 * repository stand for three machines: worker A makes a fix and dies, worker
 * B on another clone takes the run over and completes it, and clone C writes
 * the record from the ledger (`status`, `resume`, `verify --run`) and applies
 * the fixes (`review --apply`). A bundle that yields another commit is
 * refused and never applied. Real git, a real subprocess agent, the real
 * SQLite ledger and the real PostgreSQL on 127.0.0.1:5432.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LoopDeps } from '../../src/loop/deps.js';
import { runWorker } from '../../src/loop/operations.js';
import { recordPathFor } from '../../src/record/write.js';
import { TEST_GIT_ENV } from '../helpers/git-repo.js';
import { createTestDatabase, type TestDatabase } from '../helpers/pg.js';
import {
  baseConfig,
  ensureBuilt,
  FIXED_FILE,
  findings,
  inProcess,
  makeReviewRepo,
  pass,
  type ReviewRepo,
  raceFinding,
  reposRemovedAfterAll,
  review,
  runCli,
  testEnv,
} from './helpers.js';

const ORIGIN = 'https://example.invalid/team/app';
/** Each test's own origin: the fixture's commits are byte-identical across tests, and one PostgreSQL ledger serves them all. */
const origin = () => `${ORIGIN}-${randomBytes(4).toString('hex')}`;
const repos = reposRemovedAfterAll();
const dirs: string[] = [];
let db: TestDatabase | undefined;

beforeAll(async () => {
  await ensureBuilt();
  db = await createTestDatabase();
}, 120_000);
afterAll(async () => {
  await db?.drop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const git = (dir: string, args: string[]): string =>
  execFileSync('git', ['-C', dir, ...args], { env: TEST_GIT_ENV, encoding: 'utf8' }).trim();

/** A fresh ledger of the kind, shared by the clones: a SQLite file outside them, or a PostgreSQL database. */
function ledger(kind: 'sqlite' | 'postgres'): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'revloop-shared-')));
  dirs.push(dir);
  if (kind === 'sqlite') return `sqlite:${join(dir, 'ledger.db')}`;
  // One database per file; each test's runs have their own repository and ids.
  return (db as TestDatabase).url;
}

/** A change whose first round has a blocker the fixer fixes; round 2 passes. One origin for every clone. */
async function fixingRepo(): Promise<ReviewRepo> {
  const r = await makeReviewRepo({ config: (a) => baseConfig(a, { fixer: a }) });
  repos.push(r);
  r.plan({
    reviewer: [{ round: 1, reply: findings(raceFinding()) }, { reply: pass }],
    fixer: [{ write: { 'src/calc.js': FIXED_FILE }, reply: { disputed: [] } }],
  });
  r.repo.git(['remote', 'add', 'origin', origin()]);
  return r;
}

/** Another machine's checkout: a clone of `r` as it was admitted (main and topic), the same origin. */
function cloneOf(r: ReviewRepo): string {
  const dir = join(realpathSync(mkdtempSync(join(tmpdir(), 'revloop-clone-'))), 'app');
  dirs.push(dir);
  execFileSync('git', ['clone', '-q', '--no-local', '--no-tags', r.dir, dir], { env: TEST_GIT_ENV });
  git(dir, ['branch', 'main', 'origin/main']);
  git(dir, ['remote', 'set-head', 'origin', '-d']);
  git(dir, ['remote', 'set-url', 'origin', git(r.dir, ['remote', 'get-url', 'origin'])]);
  return dir;
}

const has = (dir: string, sha: string): boolean => {
  try {
    git(dir, ['cat-file', '-e', `${sha}^{commit}`]);
    return true;
  } catch {
    return false;
  }
};

/** Worker A: reviews in `r` and dies at the `nth` crossing of `point`, holding a short lease. Returns the run id. */
async function dieAt(r: ReviewRepo, url: string, point: string, nth = 1): Promise<string> {
  let seen = 0;
  const tweak = (d: LoopDeps): LoopDeps => ({
    ...d,
    leaseTtlMs: 300,
    crashPoint: (name) => {
      if (name === point && ++seen === nth) throw new Error('controller died');
    },
  });
  const a = await inProcess(r.dir, { url, tweak });
  try {
    await expect(review(a, r.dir)).rejects.toThrow('controller died');
    const [run] = await a.store.listRuns();
    if (!run) throw new Error('no run admitted');
    // Wait out the dead owner's lease (no worker on another host can tell it died).
    while (((await a.store.getRun(run.id))?.leaseExpiresAt ?? 0) > Date.now())
      await new Promise((done) => setTimeout(done, 100));
    return run.id;
  } finally {
    await a.close();
  }
}

/** Worker B on clone `dir`: drains the queue of its repository. */
async function workerIn(dir: string, url: string) {
  const b = await inProcess(dir, { url });
  try {
    const errors: string[] = [];
    await runWorker(b.deps, {
      concurrency: 1,
      exitWhenIdle: true,
      onError: (_, e) => errors.push(e.message),
    });
    return { errors, store: b.store, close: () => b.close() };
  } catch (err) {
    await b.close();
    throw err;
  }
}

/** Replaces the ledger's bundle of `commit` with `bytes`, as someone who can write the ledger could. */
async function tamper(url: string, runId: string, commit: string, bytes: Buffer): Promise<void> {
  if (url.startsWith('sqlite:')) {
    const d = new Database(url.slice('sqlite:'.length));
    const n = d
      .prepare('UPDATE fix_bundles SET bundle = ? WHERE run_id = ? AND commit_id = ?')
      .run(bytes, runId, commit).changes;
    d.close();
    expect(n).toBe(1);
    return;
  }
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const r = await c.query('UPDATE fix_bundles SET bundle = $1 WHERE run_id = $2 AND commit_id = $3', [
      bytes,
      runId,
      commit,
    ]);
    expect(r.rowCount).toBe(1);
  } finally {
    await c.end();
  }
}

/** A well-formed bundle of another commit on top of the admitted head: what a tampered row holds. */
function otherBundle(r: ReviewRepo): { bytes: Buffer; commit: string } {
  const dir = cloneOf(r);
  git(dir, ['checkout', '-q', r.head]);
  execFileSync('git', ['-C', dir, 'commit', '-q', '--allow-empty', '-m', 'not the fix'], {
    env: TEST_GIT_ENV,
  });
  const commit = git(dir, ['rev-parse', 'HEAD']);
  const bytes = execFileSync('git', ['-C', dir, 'bundle', 'create', '-', 'HEAD', `^${r.head}`], {
    env: TEST_GIT_ENV,
  });
  return { bytes, commit };
}

const cli = (dir: string, url: string, args: string[]) =>
  runCli([...args, '--store', url], { cwd: dir, env: testEnv() });

describe.each(['sqlite', 'postgres'] as const)('%s ledger: what a run made is every clone’s', (kind) => {
  it('B takes over the run A fixed and died in; C writes the record from the ledger, verifies it and applies the fixes', async () => {
    const r = await fixingRepo();
    const url = ledger(kind);
    const cloneB = cloneOf(r);
    const cloneC = cloneOf(r);
    const runId = await dieAt(r, url, 'before-complete:fix');

    const b = await workerIn(cloneB, url);
    let fixCommit: string;
    try {
      expect(b.errors).toEqual([]);
      const run = await b.store.getRun(runId);
      expect(run, JSON.stringify(run)).toMatchObject({ status: 'completed', outcome: 'clear' });
      fixCommit = run?.head as string;
      expect(fixCommit).not.toBe(r.head);
      // The commit A made, by id, now in B's clone (imported from the ledger, not made again).
      expect(has(r.dir, fixCommit)).toBe(true);
      expect(has(cloneB, fixCommit)).toBe(true);
      expect(git(cloneB, ['rev-parse', `refs/revloop/runs/${runId}`])).toBe(fixCommit);
      expect(r.counts().fixer).toBe(1);
      expect(existsSync(recordPathFor(cloneB, runId))).toBe(true);
      expect(await b.store.getRecordEnvelope(runId)).not.toBeNull();
    } finally {
      await b.close();
    }
    expect(has(cloneC, fixCommit)).toBe(false);
    const record = recordPathFor(cloneC, runId);
    const key = join(cloneB, '.revloop/keys/signing.pub');

    const status = await cli(cloneC, url, ['status', runId]);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toContain(`its signed record was written here from the ledger: ${record}`);
    expect(readFileSync(record, 'utf8')).toBe(readFileSync(recordPathFor(cloneB, runId), 'utf8'));

    rmSync(record);
    const resumed = await cli(cloneC, url, ['resume', runId, '--json']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.json?.record).toBe(record);
    expect(existsSync(record)).toBe(true);

    const applied = await cli(cloneC, url, ['review', '--base', 'main', '--apply', '--json']);
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.json?.runId).toBe(runId);
    expect(git(cloneC, ['rev-parse', 'topic'])).toBe(fixCommit);
    expect(readFileSync(join(cloneC, 'src/calc.js'), 'utf8')).toBe(FIXED_FILE);

    rmSync(record);
    const verified = await cli(cloneC, url, ['verify', '--run', runId, '--key', key]);
    expect(verified.code, verified.stderr).toBe(0);
    expect(verified.stdout).toMatch(/^revloop verify: ok: /);
    expect(existsSync(record)).toBe(true);
  });

  it('a bundle that yields another commit is refused: the run fails with that reason, and apply applies nothing', async () => {
    const r = await fixingRepo();
    const url = ledger(kind);
    const cloneB = cloneOf(r);
    // Round 2's review: round 1's fix is the run's head.
    const runId = await dieAt(r, url, 'before:review', 2);
    const a = await inProcess(r.dir, { url });
    const fixCommit = (await a.store.getRun(runId))?.head as string;
    await a.close();
    expect(fixCommit).not.toBe(r.head);
    const other = otherBundle(r);
    await tamper(url, runId, fixCommit, other.bytes);

    const b = await workerIn(cloneB, url);
    try {
      const run = await b.store.getRun(runId);
      expect(run).toMatchObject({ status: 'failed', reason: 'unresumable' });
      expect(run?.detail).toBe(
        `fix bundle for commit ${fixCommit} refused: it yields commit ${other.commit}`,
      );
      expect(has(cloneB, fixCommit)).toBe(false);
      expect(git(cloneB, ['for-each-ref', 'refs/revloop/'])).toBe('');
    } finally {
      await b.close();
    }
  });

  it('review --apply on another clone refuses a tampered bundle in one line and moves nothing', async () => {
    const r = await fixingRepo();
    const url = ledger(kind);
    const a = await inProcess(r.dir, { url });
    const done = await review(a, r.dir);
    await a.close();
    expect(done.run).toMatchObject({ status: 'completed', outcome: 'clear' });
    const fixCommit = done.run.head;
    const other = otherBundle(r);
    await tamper(url, done.run.id, fixCommit, other.bytes);

    const cloneC = cloneOf(r);
    const res = await cli(cloneC, url, ['review', '--base', 'main', '--apply', '--json']);
    expect(res.code, res.stderr).toBe(7);
    const lines = res.stderr.trim().split('\n');
    expect(lines).toEqual([
      `revloop: not applied: fix bundle for commit ${fixCommit} refused: it yields commit ${other.commit}; the fixes are at ${fixCommit}`,
    ]);
    expect(git(cloneC, ['rev-parse', 'topic'])).toBe(r.head);
    expect(has(cloneC, fixCommit)).toBe(false);
    expect(git(cloneC, ['for-each-ref', 'refs/revloop/'])).toBe('');
  });

  it('a completed run with no record in the ledger is signed and kept there by the next worker that starts', async () => {
    const r = await fixingRepo();
    const url = ledger(kind);
    const runId = await dieAt(r, url, 'after:finish');
    const cloneB = cloneOf(r);
    const b = await workerIn(cloneB, url);
    try {
      expect(b.errors).toEqual([]);
      expect(await b.store.getRun(runId)).toMatchObject({ status: 'completed', outcome: 'clear' });
      expect(await b.store.getRecordEnvelope(runId)).not.toBeNull();
      expect(existsSync(recordPathFor(cloneB, runId))).toBe(true);
    } finally {
      await b.close();
    }
    const cloneC = cloneOf(r);
    const applied = await cli(cloneC, url, ['review', '--base', 'main', '--apply', '--json']);
    expect(applied.code, applied.stderr).toBe(0);
    const verified = await cli(cloneC, url, [
      'verify',
      '--run',
      runId,
      '--key',
      join(cloneB, '.revloop/keys/signing.pub'),
    ]);
    expect(verified.code, verified.stderr).toBe(0);
  });
});
