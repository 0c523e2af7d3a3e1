/**
 * docs/service.md's local try, run as written: its `sh quickstart` blocks,
 * in order, in one bash, with the built CLI as `revloop`, the real
 * PostgreSQL at 127.0.0.1:5432, a real clone whose origin holds the pull
 * request, and the loopback GitHub as the forge. The only inputs are the
 * variables the doc says to set; what the doc promises (202, then a review
 * and its check on the pull request) is what is checked. Also: the guide's
 * compose.yaml is YAML with the services it describes.
 */
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { FakeGitHub } from '../forge/fake-github.js';
import { pushTo, startGitHub, TOKENS } from '../forge/setup.js';
import { TEST_GIT_ENV } from '../helpers/git-repo.js';
import { PG_ADMIN_URL } from '../helpers/pg.js';
import { baseConfig, CLI, findings, makeReviewRepo, raceFinding, testEnv } from '../loop/helpers.js';

const ROOT = join(import.meta.dirname, '../..');
const GUIDE = readFileSync(join(ROOT, 'docs/service.md'), 'utf8');

/** The guide's fenced blocks marked `sh quickstart`, in order. */
function quickstartBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^```sh quickstart\n([\s\S]*?)^```$/gm)].map((m) => m[1] ?? '');
}

const freePort = () =>
  new Promise<number>((done) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => done(port));
    });
  });

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe("docs/service.md's local try", () => {
  it('has the three steps: the ledger and secret, the service and a worker, one signed delivery', () => {
    const blocks = quickstartBlocks(GUIDE);
    expect(blocks).toHaveLength(3);
    expect(blocks[0]).toContain('createdb');
    expect(blocks[1]).toMatch(/revloop serve .*\n.*revloop worker /);
    expect(blocks[2]).toContain('/webhooks/github');
  });

  it('run as written, turns one fake delivery into a review published on the pull request', async () => {
    let gh: FakeGitHub | null = await startGitHub();
    cleanups.push(async () => {
      await gh?.stop();
      gh = null;
    });
    const r = await makeReviewRepo({ config: (a) => baseConfig(a) });
    cleanups.push(() => r.cleanup());
    r.plan({ reviewer: [{ reply: findings(raceFinding()) }] });
    r.repo.git(['update-ref', 'refs/pull/7/head', r.head]);
    pushTo(gh, r.repo, 7, r.base, r.head);
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'revloop-try-')));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const clone = join(dir, 'clone');
    execFileSync('git', ['clone', '-q', r.dir, clone], { env: TEST_GIT_ENV });
    // `revloop` on PATH is the built CLI, as an installed one would be.
    const bin = join(dir, 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'revloop'), `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`);
    chmodSync(join(bin, 'revloop'), 0o755);
    const scratch = join(dir, 'scratch');
    mkdirSync(scratch);
    const db = `revloop_try_${randomBytes(4).toString('hex')}`;
    cleanups.push(async () => {
      const c = new pg.Client({ connectionString: PG_ADMIN_URL });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`);
      await c.end();
    });

    const script = ['set -eu', ...quickstartBlocks(GUIDE)].join('\n');
    const env = testEnv({
      PATH: `${bin}:${process.env.PATH}`,
      CLONE: clone,
      REPOSITORY: 'acme/widgets',
      PR: '7',
      BASE: 'main',
      PORT: String(await freePort()),
      GITHUB_API_URL: gh.url,
      GITHUB_TOKEN: TOKENS.app,
      REVLOOP_DB: db,
    });
    // Its own process group: the service and the worker it starts in the background are stopped with it.
    const sh = spawn('bash', ['-c', script], {
      cwd: scratch,
      env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    cleanups.push(async () => {
      try {
        process.kill(-(sh.pid ?? 0), 'SIGTERM');
      } catch {
        return;
      }
      // The worker finishes its call and releases its lease on SIGTERM; wait for the group to be gone.
      for (let i = 0; i < 600; i++) {
        try {
          process.kill(-(sh.pid ?? 0), 0);
        } catch {
          return;
        }
        await new Promise((ok) => setTimeout(ok, 50));
      }
      process.kill(-(sh.pid ?? 0), 'SIGKILL');
    });
    let out = '';
    let err = '';
    sh.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    sh.stderr.on('data', (d: Buffer) => {
      err += d.toString();
    });
    const code = await new Promise<number | null>((done) => sh.on('exit', done));
    const logs = () =>
      `stdout:\n${out}\nstderr:\n${err}\nserve.log:\n${safeRead(join(scratch, 'serve.log'))}\nworker.log:\n${safeRead(join(scratch, 'worker.log'))}`;
    expect(code, logs()).toBe(0);
    // The readiness wait printed `ready`; the delivery was answered 202 and recorded pending.
    expect(out, logs()).toContain('ready\n');
    const answer = JSON.parse(out.slice(out.indexOf('{'))) as Record<string, unknown>;
    expect(answer, logs()).toEqual({ delivery: `try-${r.head}`, state: 'pending' });

    const end = Date.now() + 120_000;
    const published = () =>
      (gh?.reviews.length ?? 0) > 0 && (gh?.checkRuns.some((c) => c.head_sha === r.head) ?? false);
    while (!published() && Date.now() < end) await new Promise((ok) => setTimeout(ok, 100));
    expect(gh?.reviews, logs()).toHaveLength(1);
    expect(gh?.reviews[0]).toMatchObject({ pull: 7, commit_id: r.head });
    expect(gh?.checkRuns.filter((c) => c.head_sha === r.head)).toHaveLength(1);
    expect(gh?.violations).toEqual([]);
    const serveLog = safeRead(join(scratch, 'serve.log'))
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(serveLog.find((l) => l.msg === 'delivery admitted')).toMatchObject({ delivery: `try-${r.head}` });
  });
});

const safeRead = (p: string): string => {
  try {
    return readFileSync(p, 'utf8');
  } catch {
    return '(none)';
  }
};

describe('examples/service/compose.yaml', () => {
  it('is YAML with PostgreSQL, the service and a worker; no secret in it', () => {
    const text = readFileSync(join(ROOT, 'examples/service/compose.yaml'), 'utf8');
    const c = parse(text, { merge: true }) as {
      services: Record<
        string,
        { command?: string[]; environment?: Record<string, string>; depends_on?: object }
      >;
    };
    expect(Object.keys(c.services).sort()).toEqual(['clone', 'postgres', 'serve', 'worker']);
    expect(c.services.serve?.command?.[0]).toBe('serve');
    expect(c.services.worker?.command?.[0]).toBe('worker');
    expect(c.services.serve?.environment?.REVLOOP_STORE).toMatch(
      /^postgres:\/\/revloop:\$\{POSTGRES_PASSWORD/,
    );
    expect(c.services.worker?.environment?.GITHUB_TOKEN).toMatch(/^\$\{GITHUB_TOKEN:\?/);
    expect(c.services.serve?.environment?.REVLOOP_WEBHOOK_SECRET).toMatch(/^\$\{REVLOOP_WEBHOOK_SECRET/);
    expect(c.services.serve?.depends_on).toMatchObject({ postgres: { condition: 'service_healthy' } });
    // Every secret is interpolated from .env, never written here.
    for (const line of text.split('\n').filter((l) => /(PASSWORD|TOKEN|SECRET):/.test(l)))
      expect(line).toMatch(/\$\{[A-Z_]+/);
  });
});
