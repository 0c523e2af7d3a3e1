/**
 * The rest of the service's loop, with real parts: `revloop worker` (the
 * built CLI) drives what `revloop serve` admitted and publishes it to the
 * pull request through `publish`'s own path, once; the reconciler admits a
 * head no delivery announced; and the command refuses to start without a
 * secret or on SQLite.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { reconcileOnce } from '../../src/serve/reconciler.js';
import type { FakeGitHub } from '../forge/fake-github.js';
import { startGitHub, TOKENS } from '../forge/setup.js';
import { createTestDatabase, type TestDatabase } from '../helpers/pg.js';
import { CLI, runCli, testEnv } from '../loop/helpers.js';
import { type Bench, bench, pullRequestPayload, SECRET, sendGitHub, settled } from './harness.js';

let db: TestDatabase;
let gh: FakeGitHub;
let b: Bench | null = null;

beforeAll(async () => {
  db = await createTestDatabase('revloop_serve_publish');
});
afterAll(async () => {
  await db?.drop();
});
beforeEach(async () => {
  gh = await startGitHub();
});
afterEach(async () => {
  expect(gh.violations).toEqual([]);
  await b?.close();
  b = null;
  await gh.stop();
  await db.truncate();
});

const workerEnv = () => testEnv({ GITHUB_API_URL: gh.url, GITHUB_TOKEN: TOKENS.app });

describe('workers publish what the service admitted', () => {
  it('a superseded run is not published; the newer head gets exactly one review and its check, once', async () => {
    b = await bench({ storeUrl: db.url, gh });
    const { serve, store, r, push, clone } = b;
    await sendGitHub(serve.url, 'pull_request', pullRequestPayload({ action: 'opened', head: r.head }));
    await settled(store);
    const newer = push(7, 'src/extra.js');
    await sendGitHub(serve.url, 'pull_request', pullRequestPayload({ action: 'synchronize', head: newer }));
    await settled(store);
    const args = ['worker', '--repo', clone, '--store', db.url, '--exit-when-idle', '--json'];
    const w = await runCli(args, { cwd: clone, env: workerEnv(), timeoutMs: 120_000 });
    expect(w.stderr).toBe('');
    expect(w.code).toBe(0);
    const runs = await store.listRuns();
    const old = runs.find((x) => x.head === r.head);
    const live = runs.find((x) => x.head === newer);
    expect(old).toMatchObject({ status: 'aborted', reason: 'superseded' });
    expect(live).toMatchObject({ status: 'completed', outcome: 'findings' });
    expect(await store.deliveries.triggerOf(old?.id ?? '')).toMatchObject({
      detail: 'not published: superseded',
    });
    expect(await store.deliveries.triggerOf(live?.id ?? '')).toMatchObject({ detail: 'published' });
    expect(gh.counts().reviews).toBe(1);
    expect(gh.reviews[0]).toMatchObject({ pull: 7, commit_id: newer });
    expect(gh.checkRuns.filter((c) => c.head_sha === newer)).toHaveLength(1);
    expect(gh.comments.map((c) => c.path)).toEqual(['src/calc.js']);
    // Another worker (or this one again) finds nothing left to publish: the forge sees no write.
    const writes = gh.writes();
    const again = await runCli(args, { cwd: clone, env: workerEnv(), timeoutMs: 120_000 });
    expect(again.code).toBe(0);
    expect(gh.writes()).toBe(writes);
    expect(gh.counts().reviews).toBe(1);
  });
});

describe('the reconciler', () => {
  it('admits, on start, an open head no delivery announced; a later delivery of it admits nothing new', async () => {
    b = await bench({ storeUrl: db.url, gh });
    const { serve, store, r } = b;
    const until = Date.now() + 60_000;
    while ((await store.listRuns()).length === 0 && Date.now() < until)
      await new Promise((ok) => setTimeout(ok, 50));
    const [d] = await settled(store);
    expect(d).toMatchObject({ deliveryId: `reconcile:7:${r.head}`, event: 'reconcile', state: 'admitted' });
    const runs = await store.listRuns();
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ head: r.head, status: 'queued' });
    expect(await store.deliveries.triggerOf(runs[0]?.id ?? '')).toMatchObject({ pr: 7 });
    await sendGitHub(serve.url, 'pull_request', pullRequestPayload({ action: 'synchronize', head: r.head }));
    await settled(store);
    expect(await store.listRuns()).toHaveLength(1);
    // A second pass records nothing for a head it has seen; a draft and a bot's pull request are left alone.
    gh.pulls.set(8, {
      ...(gh.pulls.get(7) as NonNullable<ReturnType<typeof gh.pulls.get>>),
      number: 8,
      draft: true,
    });
    gh.pulls.set(9, {
      ...(gh.pulls.get(7) as NonNullable<ReturnType<typeof gh.pulls.get>>),
      number: 9,
      author: { login: 'renovate[bot]', type: 'Bot' },
    });
    const { listOpenPulls } = await import('../../src/forge/index.js');
    const pass = await reconcileOnce(
      store,
      { forge: 'github', repository: 'acme/widgets', repoRoot: b.clone, remote: 'origin' },
      { drafts: false, botLogins: [], maxBodyBytes: 1 << 20 },
      () => listOpenPulls({ forge: 'github', repository: 'acme/widgets', apiUrl: gh.url, token: TOKENS.app }),
    );
    expect(pass).toEqual({ open: 3, recorded: 0, skipped: 2 });
  });
});

/** `revloop serve` as a process on a free port; resolves once it logs that it listens. */
async function serveProcess(clone: string, env: NodeJS.ProcessEnv = {}) {
  const child = spawn(
    process.execPath,
    [CLI, 'serve', '--repo', clone, '--store', db.url, '--repository', 'acme/widgets', '--port', '0'],
    { cwd: clone, env: testEnv({ REVLOOP_WEBHOOK_SECRET: SECRET, GITHUB_TOKEN: undefined, ...env }) },
  );
  const lines: Record<string, unknown>[] = [];
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => {
    stderr += c.toString();
  });
  const rl = createInterface({ input: child.stdout });
  const url = await new Promise<string>((ok, fail) => {
    rl.on('line', (l) => {
      const j = JSON.parse(l) as Record<string, unknown>;
      lines.push(j);
      if (j.msg === 'listening') ok(String(j.url));
    });
    child.once('exit', (code) => fail(new Error(`serve exited ${code}: ${stderr}`)));
  });
  return { child, url, lines, stderr: () => stderr };
}

describe('revloop serve (the command)', () => {
  it('refuses to start without a secret (exit 2), and on SQLite (exit 15) without printing the secret', async () => {
    b = await bench({ storeUrl: db.url });
    const { clone } = b;
    const noSecret = await runCli(
      ['serve', '--repo', clone, '--store', db.url, '--repository', 'acme/widgets'],
      {
        cwd: clone,
        env: testEnv({ REVLOOP_WEBHOOK_SECRET: undefined }),
      },
    );
    expect(noSecret.code).toBe(2);
    expect(noSecret.stderr).toMatch(/^revloop: no webhook secret: set REVLOOP_WEBHOOK_SECRET/);
    expect(noSecret.stderr.trim().split('\n')).toHaveLength(1);
    const sqlite = await runCli(
      ['serve', '--repo', clone, '--store', 'sqlite:.revloop/ledger.db', '--repository', 'acme/widgets'],
      { cwd: clone, env: testEnv({ REVLOOP_WEBHOOK_SECRET: SECRET }) },
    );
    expect(sqlite.code).toBe(15);
    expect(sqlite.stderr).toMatch(/^revloop: revloop serve needs a PostgreSQL ledger/);
    expect(sqlite.stderr.trim().split('\n')).toHaveLength(1);
    expect(sqlite.stdout + sqlite.stderr).not.toContain(SECRET);
    const help = await runCli(['serve', '--help'], { cwd: clone });
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--secret-file');
    expect(help.stdout).toContain('--reconcile-seconds');
  });

  it('serves on PostgreSQL until SIGTERM, logging JSON lines that never carry the secret', async () => {
    b = await bench({ storeUrl: db.url });
    const { clone, r, store } = b;
    const { child, url, lines, stderr: err } = await serveProcess(clone);
    const stderr = err();
    const sent = await sendGitHub(
      url,
      'pull_request',
      pullRequestPayload({ action: 'opened', head: r.head }),
    );
    expect(sent.status).toBe(202);
    await settled(store);
    expect(await store.listRuns()).toHaveLength(1);
    child.kill('SIGTERM');
    // `close`, not `exit`: the last log lines are read from the pipe by then.
    const [code] = await once(child, 'close');
    expect(code).toBe(0);
    expect(stderr).toBe('');
    expect(err()).toBe('');
    const msgs = lines.map((l) => l.msg);
    // Which server admits the delivery is a race (the bench's in-process one shares the ledger):
    // the process's own lines are its start, its answer and its stop; the admission is the ledger's.
    expect(msgs, msgs.join(', ')).toEqual(
      expect.arrayContaining(['reconciler off: no forge token', 'listening', 'delivery', 'stopped']),
    );
    expect((await store.deliveries.listDeliveries(10)).map((d) => d.state)).toEqual(['admitted']);
    expect(JSON.stringify(lines)).not.toContain(SECRET);
  });

  it('killed with SIGKILL between the commit and the answer: another server admits the delivery, and its redelivery admits nothing twice', async () => {
    b = await bench({ storeUrl: db.url });
    const { clone, r, store } = b;
    const first = await serveProcess(clone, { REVLOOP_CRASH_AT: 'serve:after-commit' });
    const payload = pullRequestPayload({ action: 'opened', head: r.head });
    const id = 'c0ffee00-0000-4000-8000-000000000001';
    const exited = once(first.child, 'exit');
    await expect(sendGitHub(first.url, 'pull_request', payload, { id })).rejects.toThrow();
    const [, signal] = await exited;
    expect(signal).toBe('SIGKILL');
    // The sender got no answer, but the row was committed (pending, or already admitted by the
    // bench's in-process server, which shares the ledger).
    expect(await store.deliveries.getDelivery('github', id)).toMatchObject({ deliveryId: id, pr: 7 });
    const second = await serveProcess(clone);
    try {
      const again = await sendGitHub(second.url, 'pull_request', payload, { id });
      expect(again).toMatchObject({ status: 200, body: { duplicateOf: id } });
      const all = await settled(store);
      expect(all).toHaveLength(1);
      expect(all[0]).toMatchObject({ deliveryId: id, state: 'admitted' });
      expect(await store.listRuns()).toHaveLength(1);
    } finally {
      second.child.kill('SIGTERM');
      await once(second.child, 'exit');
    }
  });
});
