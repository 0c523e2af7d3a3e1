/**
 * The hunter (docs/security.md, "What each role sees"): a real `revloop
 * review` whose check, reviewer and fixer are one hostile process
 * (test/fixtures/security/hunter.mjs) that tries every way it knows to reach
 * the job's secrets, the signing key, the ledger, another checkout, the
 * user's repository and home: its environment, /proc (environ, cwd and open
 * files of every process it can see, its parent's cwd), walking up from its
 * checkout, `find /`, naming the repository outright, writing outside its
 * checkout. It posts what it found to a loopback collector.
 *
 * Confined (bwrap works here), it finds nothing, writes nothing outside its
 * checkout, the record says `confined: true` and `verify --require-confined`
 * accepts it. Where bwrap does not work (a PATH whose `bwrap` fails), review
 * says so in one line, the record says `confined: false`, `verify
 * --require-confined` exits 14, and `--require-confined` refuses to start.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probeBwrap } from '../../src/io/confine.js';
import { signingKeyPath } from '../../src/loop/outputs/write-record.js';
import { makeRepo, type TestRepo } from '../helpers/git-repo.js';
import { BASE_FILE, CRITERIA, ensureBuilt, HEAD_FILE, runCli, testEnv } from '../loop/helpers.js';
import { JOB_SECRETS } from './job-secrets.js';

const HUNTER = join(import.meta.dirname, '..', 'fixtures', 'security', 'hunter.mjs');
const bwrapWorks = probeBwrap('/usr/bin/bwrap') === null;
if (!bwrapWorks)
  console.warn(`hunter.test.ts: the confined half is skipped: ${probeBwrap('/usr/bin/bwrap')}`);

interface Report {
  role: string;
  cwd: string;
  loot: string[];
  wrote: string[];
}

let server: Server;
let url: string;
let reports: Report[] = [];
let scratch: string;
const repos: TestRepo[] = [];

beforeAll(async () => {
  ensureBuilt();
  scratch = mkdtempSync(join(tmpdir(), 'revloop-hunter-'));
  clearEscapes();
  server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (b: Buffer) => parts.push(b));
    req.on('end', () => {
      reports.push(JSON.parse(Buffer.concat(parts).toString('utf8')) as Report);
      res.end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
}, 600_000);
afterAll(async () => {
  await new Promise((r) => server?.close(r));
  for (const r of repos) await r.cleanup();
  rmSync(scratch, { recursive: true, force: true });
});

/** A repository whose config (on main) makes the hunter its check, reviewer and fixer; its key exists before the run. */
async function hostileRepo(): Promise<TestRepo> {
  const repo = await makeRepo();
  repos.push(repo);
  const hunter = ['node', HUNTER, url, repo.dir];
  repo.write('.gitignore', '.revloop/\n');
  repo.write(
    'revloop.config.yaml',
    JSON.stringify({
      criteria: 'REVIEW.md',
      reviewers: [{ name: 'correctness', command: hunter }],
      fixer: { command: hunter },
      checks: [{ name: 'tests', run: hunter, timeoutSeconds: 600 }],
      budgets: { rounds: 4, wallSeconds: 1800, costUsd: 1 },
      timeouts: { callSeconds: 600 },
    }),
  );
  repo.write('REVIEW.md', CRITERIA);
  repo.write('src/calc.js', BASE_FILE);
  repo.commit('base');
  repo.git(['checkout', '-q', '-b', 'topic']);
  repo.write('src/calc.js', HEAD_FILE);
  repo.commit('change');
  signingKeyPath(repo.dir);
  return repo;
}

/** What an unconfined hunter leaves in the host's /tmp (it writes there by name). */
function clearEscapes(): void {
  for (const role of ['check', 'reviewer', 'fixer'])
    rmSync(`/tmp/revloop-hunter-escape-${role}`, { force: true });
}

/** A PATH whose `bwrap` exists and cannot make a sandbox. */
function brokenBwrapPath(): string {
  const bin = mkdtempSync(join(scratch, 'bin-'));
  writeFileSync(
    join(bin, 'bwrap'),
    '#!/bin/sh\necho "bwrap: No permissions to create new namespace" >&2\nexit 1\n',
  );
  chmodSync(join(bin, 'bwrap'), 0o755);
  return `${bin}:${process.env.PATH}`;
}

const review = (repo: TestRepo, env: NodeJS.ProcessEnv, extra: string[] = []) =>
  runCli(['review', '--head', 'topic', '--store', 'sqlite:.revloop/ledger.db', '--json', ...extra], {
    cwd: repo.dir,
    env: testEnv({ ...JOB_SECRETS, ...env }),
    timeoutMs: 1_200_000,
  });

interface Statement {
  subject: { digest: { gitCommit: string } }[];
  predicate: { confined?: unknown; outcome: unknown };
}

function recordOf(path: string): Statement {
  const envelope = JSON.parse(readFileSync(path, 'utf8')) as { payload: string };
  return JSON.parse(Buffer.from(envelope.payload, 'base64').toString('utf8')) as Statement;
}

/** `verify --require-confined` in a checkout of the commit the record covers. */
function verify(repo: TestRepo, record: string) {
  repo.git(['checkout', '-q', '--detach', recordOf(record).subject[0]?.digest.gitCommit ?? 'HEAD']);
  return runCli(
    ['verify', record, '--key', join(repo.dir, '.revloop/keys/signing.pub'), '--require-confined', '--json'],
    { cwd: repo.dir, env: testEnv() },
  );
}

describe('a hostile check, fixer and agent', () => {
  it.skipIf(!bwrapWorks)(
    'confined: finds no secret, key, ledger, checkout, repository or home, writes nothing outside; the record says confined',
    async () => {
      reports = [];
      const repo = await hostileRepo();
      const keySha = createHash('sha256')
        .update(readFileSync(join(repo.dir, '.revloop/keys/signing.key')))
        .digest('hex');
      const res = await review(repo, { REVLOOP_CONFINE: 'require' });
      expect(res.code, res.stderr).toBe(0);
      expect(res.json).toMatchObject({ status: 'completed', outcome: 'clear' });
      expect(new Set(reports.map((r) => r.role))).toEqual(new Set(['check', 'reviewer', 'fixer']));
      for (const r of reports) {
        // Keys and ledgers elsewhere on this machine (other projects' files) are not this job's.
        const loot = r.loot.filter(
          (l) => !l.startsWith('found: ') || l.includes(repo.dir) || l.endsWith(keySha),
        );
        expect(loot, `${r.role} found`).toEqual([]);
        // Where the checkout lives (outside the repository) is the pool's rule; what it can reach is this test's.
        for (const p of r.wrote) expect(existsSync(p), `${r.role} wrote ${p} on the host`).toBe(false);
        expect(existsSync(join(dirname(r.cwd), `escape-${r.role}`))).toBe(false);
      }
      const record = String((res.json as { record: string }).record);
      expect(recordOf(record).predicate.confined).toBe(true);
      const v = await verify(repo, record);
      expect(v.code, v.stdout + v.stderr).toBe(0);
    },
    1_500_000,
  );

  it('unconfined: one line says so, the record says confined: false, verify --require-confined exits 14', async () => {
    reports = [];
    const repo = await hostileRepo();
    const res = await review(repo, { PATH: brokenBwrapPath(), REVLOOP_CONFINE: 'auto' });
    expect(res.code, res.stderr).toBe(0);
    const lines = res.stderr.split('\n').filter((l) => l.includes('unconfined'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^revloop: running reviewers, fixer and checks unconfined \(.*bwrap.*\)/);
    // Unconfined, the hunter reaches the key: the same probes that find nothing above have teeth.
    expect(reports.find((r) => r.role === 'check')?.loot).toContain('repo-read: .revloop/keys/signing.key');
    // The environment is still scrubbed.
    for (const r of reports)
      expect(
        r.loot.filter((l) => l.startsWith('env: ')),
        r.role,
      ).toEqual([]);
    const record = String((res.json as { record: string }).record);
    expect(recordOf(record).predicate.confined).toBe(false);
    const v = await verify(repo, record);
    expect(v.code, v.stdout + v.stderr).toBe(14);
    expect(v.json).toMatchObject({ ok: false, code: 'not_confined' });
    clearEscapes();
  }, 1_500_000);

  it('--require-confined without a working bwrap refuses before any process starts (exit 14, one line)', async () => {
    reports = [];
    const repo = await hostileRepo();
    const res = await review(repo, { PATH: brokenBwrapPath() }, ['--require-confined']);
    expect(res.code, res.stderr).toBe(14);
    expect(res.stderr.trim().split('\n')).toHaveLength(1);
    expect(res.stderr).toMatch(/confinement required .* unavailable: .*bwrap/);
    expect(reports).toEqual([]);
    expect(
      execFileSync('git', ['-C', repo.dir, 'for-each-ref', 'refs/revloop/runs'], { encoding: 'utf8' }),
    ).toBe('');
  }, 600_000);
});
