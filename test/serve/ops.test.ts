/**
 * What an operator of `revloop serve` relies on, against the real
 * PostgreSQL: `/healthz` and `/readyz` (the ledger reachable, its schema
 * current), `/metrics` as Prometheus reads it, log lines that name their
 * delivery and run, and the served repository's limits at admission: a
 * delivery over them waits and is admitted once there is room, never dropped.
 */
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/index.js';
import { TEST_GIT_ENV } from '../helpers/git-repo.js';
import { createTestDatabase, type TestDatabase } from '../helpers/pg.js';
import { baseConfig, CLI, findings, makeReviewRepo, raceFinding, runCli, testEnv } from '../loop/helpers.js';
import {
  type Bench,
  bench,
  ledgerProxy,
  PREVIOUS,
  pullRequestPayload,
  SECRET,
  sendGitHub,
  settled,
} from './harness.js';

let db: TestDatabase;
let b: Bench | null = null;

beforeAll(async () => {
  db = await createTestDatabase('revloop_serve_ops');
});
afterAll(async () => {
  await db?.drop();
});
afterEach(async () => {
  await b?.close();
  b = null;
  await db.truncate();
});

/** Polls until `check` holds; a bound for a test that would otherwise hang, not a verdict. */
async function until<T>(what: string, check: () => Promise<T | null | undefined | false>): Promise<T> {
  const end = Date.now() + 60_000;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > end) throw new Error(`still waiting for ${what}`);
    await new Promise((ok) => setTimeout(ok, 50));
  }
}

/** The exposition's one sample of `name` whose labels include `labels`. */
interface Family {
  name: string;
  type: string;
  metrics: { value: string; labels?: Record<string, string> }[];
}
const sample = (
  families: Family[],
  name: string,
  labels: Record<string, string> = {},
): number | undefined => {
  const f = families.find((x) => x.name === name);
  const m = f?.metrics.find((x) => Object.entries(labels).every(([k, v]) => x.labels?.[k] === v));
  return m === undefined ? undefined : Number(m.value);
};

/** The text format's grammar, line by line (version 0.0.4), stricter than the parser on what it skips. */
function checkExposition(text: string): void {
  expect(text.endsWith('\n')).toBe(true);
  const typed = new Set<string>();
  const NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*';
  const LABEL = '[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\\\\n]|\\\\[\\\\"n])*"';
  const sampleLine = new RegExp(
    `^(${NAME})(?:\\{(?:${LABEL})(?:,${LABEL})*\\})? (?:[-+]?[0-9.]+(?:e[-+]?[0-9]+)?|NaN|[+-]Inf)$`,
  );
  for (const line of text.slice(0, -1).split('\n')) {
    const type = line.match(new RegExp(`^# TYPE (${NAME}) (counter|gauge|histogram|summary|untyped)$`));
    if (type?.[1]) {
      expect(typed.has(type[1]), `one TYPE line per family: ${line}`).toBe(false);
      typed.add(type[1]);
      continue;
    }
    if (new RegExp(`^# HELP ${NAME} `).test(line)) continue;
    const s = line.match(sampleLine);
    expect(s, `a sample line: ${line}`).not.toBeNull();
    expect(typed.has(s?.[1] ?? ''), `its TYPE comes first: ${line}`).toBe(true);
  }
}

describe('probes', () => {
  it('/healthz is up while the process is; /readyz is 503 with a one-line reason while the ledger is away, 200 once back', async () => {
    const proxy = await ledgerProxy(db.url);
    try {
      b = await bench({ storeUrl: proxy.url });
      const { serve } = b;
      const health = await fetch(`${serve.url}/healthz`);
      expect(health.status).toBe(200);
      const ready = await fetch(`${serve.url}/readyz`);
      expect([ready.status, await ready.text()]).toEqual([200, 'ready\n']);
      await proxy.cut();
      const away = await fetch(`${serve.url}/readyz`);
      const why = await away.text();
      expect(away.status).toBe(503);
      expect(why).toMatch(/^not ready: the ledger is unreachable: .+\n$/);
      expect(why.trimEnd().includes('\n')).toBe(false);
      expect((await fetch(`${serve.url}/healthz`)).status).toBe(200);
      // A scrape while the ledger is away still answers, with the process's counters and ledger_up 0.
      const scrape = await fetch(`${serve.url}/metrics`);
      expect(scrape.status).toBe(200);
      expect(await scrape.text()).toContain('\nrevloop_ledger_up 0\n');
      await proxy.mend();
      await until('ready again', async () => (await fetch(`${serve.url}/readyz`)).status === 200);
    } finally {
      await b?.close();
      b = null;
      await proxy.close();
    }
  });

  it("/readyz says which migration is missing when the ledger's schema is behind", async () => {
    b = await bench({ storeUrl: db.url });
    const { serve, store } = b;
    const v = await store.deliveries.schemaVersion();
    expect(v.applied).toBe(v.wanted);
    const pg = (await import('pg')).default;
    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    try {
      await c.query('DELETE FROM schema_migrations WHERE version = $1', [v.wanted]);
      const res = await fetch(`${serve.url}/readyz`);
      expect(res.status).toBe(503);
      expect(await res.text()).toBe(
        `not ready: the ledger's schema is at migration ${v.wanted - 1}, this revloop needs ${v.wanted}\n`,
      );
    } finally {
      await c.query("INSERT INTO schema_migrations (version, name) VALUES ($1, 'restored')", [v.wanted]);
      await c.end();
    }
  });
});

describe('/metrics', () => {
  it('counts answers, duplicates and bad signatures, reads the queue and runs from the ledger, in the text format', async () => {
    b = await bench({ storeUrl: db.url, secrets: [SECRET, PREVIOUS] });
    const { serve, store, r } = b;
    const payload = pullRequestPayload({ action: 'opened', head: r.head });
    const id = 'metrics-delivery-1';
    expect((await sendGitHub(serve.url, 'pull_request', payload, { id })).status).toBe(202);
    expect((await sendGitHub(serve.url, 'pull_request', payload, { id })).status).toBe(200);
    expect(
      (await sendGitHub(serve.url, 'pull_request', payload, { secret: 'a-wrong-secret-9' })).status,
    ).toBe(401);
    await settled(store);

    const res = await fetch(`${serve.url}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    const text = await res.text();
    checkExposition(text);
    const families = parsePrometheusTextFormat(text) as Family[];
    expect(sample(families, 'revloop_webhook_requests_total', { forge: 'github', status: '202' })).toBe(1);
    expect(sample(families, 'revloop_webhook_requests_total', { forge: 'github', status: '200' })).toBe(1);
    expect(sample(families, 'revloop_webhook_requests_total', { forge: 'github', status: '401' })).toBe(1);
    expect(sample(families, 'revloop_webhook_duplicates_total', { forge: 'github' })).toBe(1);
    expect(sample(families, 'revloop_webhook_invalid_signatures_total', { forge: 'github' })).toBe(1);
    expect(families.find((f) => f.name === 'revloop_webhook_requests_total')?.type).toBe('COUNTER');
    expect(sample(families, 'revloop_ledger_up')).toBe(1);
    expect(sample(families, 'revloop_deliveries', { state: 'admitted' })).toBe(1);
    expect(sample(families, 'revloop_queue_depth')).toBe(1);
    expect(sample(families, 'revloop_queue_oldest_age_seconds')).toBeGreaterThanOrEqual(0);
    expect(sample(families, 'revloop_runs', { status: 'queued', outcome: '' })).toBe(1);
    expect(sample(families, 'revloop_spend_usd', { window: 'all' })).toBe(0);
    expect(sample(families, 'revloop_spend_usd', { window: '24h' })).toBe(0);
    // Nothing secret, and no delivery id, in any label or help text.
    for (const s of [SECRET, PREVIOUS, id, 'a-wrong-secret-9']) expect(text).not.toContain(s);
  });
});

describe('logs', () => {
  it("every line about a delivery names it, and once it is admitted, the run's id", async () => {
    b = await bench({ storeUrl: db.url });
    const { serve, store, r, logs } = b;
    const payload = pullRequestPayload({ action: 'opened', head: r.head });
    await sendGitHub(serve.url, 'pull_request', payload, { id: 'log-1' });
    await sendGitHub(serve.url, 'pull_request', payload, { id: 'log-bad', secret: 'wrong' });
    await sendGitHub(serve.url, 'pull_request', payload, { id: 'log-1' });
    await settled(store);
    const [run] = await store.listRuns();
    const lines = logs.filter((l) => l.delivery !== undefined || String(l.msg).startsWith('delivery'));
    expect(lines.map((l) => [l.msg, l.delivery, l.status ?? null])).toEqual(
      expect.arrayContaining([
        ['delivery', 'log-1', 202],
        ['delivery', 'log-bad', 401],
        ['delivery', 'log-1', 200],
        ['delivery admitted', 'log-1', null],
      ]),
    );
    for (const l of lines) expect(typeof l.delivery).toBe('string');
    expect(lines.find((l) => l.msg === 'delivery admitted')).toMatchObject({ runId: run?.id });
  });
});

describe("the served repository's limits, at admission", () => {
  it('--max-active-runs: a delivery over it waits, pending, and is admitted once a run ends', async () => {
    b = await bench({ storeUrl: db.url, limits: { maxActive: 1 } });
    const { serve, store, r, push, logs } = b;
    await sendGitHub(serve.url, 'pull_request', pullRequestPayload({ action: 'opened', head: r.head }));
    await settled(store);
    const head8 = push(8, 'src/eight.js');
    await sendGitHub(serve.url, 'pull_request', pullRequestPayload({ action: 'opened', pr: 8, head: head8 }));
    const waiting = await until('the deferral', async () =>
      (await store.deliveries.listDeliveries(10)).find((d) => d.pr === 8 && d.detail?.includes('deferred')),
    );
    expect(waiting).toMatchObject({ state: 'pending', runId: null });
    expect(waiting.detail).toMatch(/^deferred \(capacity\): 1 runs queued or running, capacity 1$/);
    expect(logs.some((l) => l.msg === 'delivery deferred' && l.delivery === waiting.deliveryId)).toBe(true);
    expect(await store.listRuns()).toHaveLength(1);
    // Room frees up: the first pull request closes and its queued run ends.
    await sendGitHub(serve.url, 'pull_request', pullRequestPayload({ action: 'closed', head: r.head }));
    const admitted = await until('the admission', async () => {
      const d = await store.deliveries.getDelivery('github', waiting.deliveryId);
      return d?.state === 'admitted' ? d : null;
    });
    const runs = await store.listRuns();
    expect(runs.find((x) => x.id === admitted.runId)).toMatchObject({ head: head8, status: 'queued' });
    expect(runs).toHaveLength(2);
  });

  it("--daily-spend-usd: a run whose budget would pass the day's spend waits; it is admitted once the spend has room", async () => {
    // Each run is charged its budget ($5 by the config) while it is active.
    b = await bench({ storeUrl: db.url, limits: { dailySpendUsd: 7 } });
    const { serve, store, r, push } = b;
    await sendGitHub(serve.url, 'pull_request', pullRequestPayload({ action: 'opened', head: r.head }));
    await settled(store);
    const head8 = push(8, 'src/eight.js');
    await sendGitHub(serve.url, 'pull_request', pullRequestPayload({ action: 'opened', pr: 8, head: head8 }));
    const waiting = await until('the deferral', async () =>
      (await store.deliveries.listDeliveries(10)).find((d) => d.pr === 8 && d.detail?.includes('deferred')),
    );
    expect(waiting.state).toBe('pending');
    expect(waiting.detail).toMatch(
      /^deferred \(cost\): \$5\.00 committed in the last 86400 s \+ \$5\.00 would exceed the budget \$7\.00$/,
    );
    await sendGitHub(serve.url, 'pull_request', pullRequestPayload({ action: 'closed', head: r.head }));
    const admitted = await until('the admission', async () => {
      const d = await store.deliveries.getDelivery('github', waiting.deliveryId);
      return d?.state === 'admitted' ? d : null;
    });
    expect(admitted.runId).not.toBeNull();
  });

  it("counts only the served repository's runs: another repository's active run in the same ledger leaves room", async () => {
    b = await bench({ storeUrl: db.url, limits: { maxActive: 1 } });
    const { serve, store, r, push } = b;
    await sendGitHub(serve.url, 'pull_request', pullRequestPayload({ action: 'opened', head: r.head }));
    await settled(store);
    // The queued run becomes another repository's, as another service sharing the ledger would have admitted it.
    const pg = (await import('pg')).default;
    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    await c.query("UPDATE runs SET repo = 'https://forge.example/other/repo.git'");
    await c.end();
    const head8 = push(8, 'src/eight.js');
    await sendGitHub(serve.url, 'pull_request', pullRequestPayload({ action: 'opened', pr: 8, head: head8 }));
    const all = await settled(store);
    expect(all.find((d) => d.pr === 8)).toMatchObject({ state: 'admitted' });
    expect((await store.listRuns()).filter((x) => x.status === 'queued')).toHaveLength(2);
  });
});

describe('the limit flags', () => {
  it('a bad --max-active-runs or --daily-spend-usd is one line and exit 2, before anything opens', async () => {
    const cwd = import.meta.dirname;
    for (const [flag, value, says] of [
      ['--max-active-runs', '0', '--max-active-runs must be a whole number from 1 to 100000, got "0"'],
      ['--max-active-runs', '2.5', '--max-active-runs must be a whole number from 1 to 100000, got "2.5"'],
      ['--daily-spend-usd', 'ten', '--daily-spend-usd must be an amount in US dollars >= 0, got "ten"'],
      ['--daily-spend-usd', '-1', '--daily-spend-usd must be an amount in US dollars >= 0, got "-1"'],
    ] as const) {
      const res = await runCli(['serve', '--repository', 'acme/widgets', flag, value], {
        cwd,
        env: testEnv({ REVLOOP_WEBHOOK_SECRET: SECRET }),
      });
      expect(res.code, res.stderr).toBe(2);
      expect(res.stderr).toBe(`revloop: ${says}\n`);
    }
    const help = await runCli(['serve', '--help'], { cwd });
    for (const s of [
      '--max-active-runs',
      '--daily-spend-usd',
      'GET /readyz',
      'GET /metrics',
      'docs/service.md',
    ])
      expect(help.stdout).toContain(s);
  });
});

describe('the limit flags, through the command', () => {
  it("`revloop serve --max-active-runs 1` defers the second pull request while the first one's run is queued", async () => {
    const r = await makeReviewRepo({ config: (a) => baseConfig(a) });
    r.plan({ reviewer: [{ reply: findings(raceFinding()) }] });
    r.repo.git(['update-ref', 'refs/pull/7/head', r.head]);
    r.repo.write('src/eight.js', '// eight\n');
    const head8 = r.repo.commit('eight');
    r.repo.git(['update-ref', 'refs/pull/8/head', head8]);
    const parent = realpathSync(mkdtempSync(join(tmpdir(), 'revloop-limits-')));
    const clone = join(parent, 'clone');
    execFileSync('git', ['clone', '-q', r.dir, clone], { env: TEST_GIT_ENV });
    const store = await openStore(db.url);
    const child = spawn(
      process.execPath,
      [
        CLI,
        'serve',
        '--repo',
        clone,
        '--store',
        db.url,
        '--repository',
        'acme/widgets',
        '--port',
        '0',
      ].concat(['--max-active-runs', '1']),
      { cwd: clone, env: testEnv({ REVLOOP_WEBHOOK_SECRET: SECRET, GITHUB_TOKEN: undefined }) },
    );
    try {
      const lines: Record<string, unknown>[] = [];
      const url = await new Promise<string>((ok, fail) => {
        createInterface({ input: child.stdout }).on('line', (l) => {
          const j = JSON.parse(l) as Record<string, unknown>;
          lines.push(j);
          if (j.msg === 'listening') ok(String(j.url));
        });
        child.once('exit', (code) => fail(new Error(`serve exited ${code}`)));
      });
      await sendGitHub(url, 'pull_request', pullRequestPayload({ action: 'opened', head: r.head }));
      await settled(store);
      await sendGitHub(url, 'pull_request', pullRequestPayload({ action: 'opened', pr: 8, head: head8 }));
      const waiting = await until('the deferral', async () =>
        (await store.deliveries.listDeliveries(10)).find((d) => d.pr === 8 && d.detail?.includes('deferred')),
      );
      expect(waiting).toMatchObject({
        state: 'pending',
        detail: 'deferred (capacity): 1 runs queued or running, capacity 1',
      });
      expect(lines.find((l) => l.msg === 'delivery deferred')).toMatchObject({
        delivery: waiting.deliveryId,
        pr: 8,
      });
      expect(await store.listRuns()).toHaveLength(1);
    } finally {
      child.kill('SIGTERM');
      await once(child, 'close');
      await store.close();
      await r.cleanup();
      rmSync(parent, { recursive: true, force: true });
    }
  });
});
