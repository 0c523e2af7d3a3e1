/**
 * The dashboard's view of `revloop serve`, in real Chromium against real
 * ledgers: on PostgreSQL (where the service runs) a reviewed run, the webhook
 * deliveries that admitted it and others, recorded and ended through the
 * store's own methods as the service does, and a settlement made from the
 * pull request (the settle operation with the forge identity as the person);
 * on SQLite, the page says the service is not in use.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { settleFinding } from '../../src/loop/settle.js';
import type { NewDelivery } from '../../src/ports/deliveries.js';
import type { Store } from '../../src/ports/store.js';
import { openStore } from '../../src/store/index.js';
import { type RunningUi, startUi } from '../../src/web/start.js';
import { createTestDatabase, type TestDatabase } from '../helpers/pg.js';
import {
  compileForBrowser,
  ensureArtifactsDir,
  hostileRun,
  launchBrowser,
  openPage as openPageOf,
  PAYLOAD,
  text,
} from './support.js';

let build: ReturnType<typeof compileForBrowser>;
let browser: Browser;
let db: TestDatabase;
let pgStore: Store;
let pgUi: RunningUi;
let sqliteDir: string;
let sqliteStore: Store;
let sqliteUi: RunningUi;
let runId: string;
let findingId: string;
let shots: string;

let n = 0;
const delivery = (over: Partial<NewDelivery>): NewDelivery => ({
  forge: 'github',
  deliveryId: `d-${++n}-${process.pid}`,
  bodyDigest: `sha256:${n}-${process.pid}`,
  event: 'pull_request/opened',
  intent: 'review',
  repository: 'acme/widgets',
  pr: 7,
  head: 'a'.repeat(40),
  baseBranch: 'main',
  sender: 'octocat',
  ...over,
});

/** Records a delivery and ends it as the admitter would. */
async function deliver(
  over: Partial<NewDelivery>,
  end: { state: 'admitted' | 'ignored' | 'failed' | 'cancelled'; runId?: string; detail?: string } | null,
): Promise<NewDelivery> {
  const d = delivery(over);
  const { inserted } = await pgStore.deliveries.recordDelivery(d);
  expect(inserted).toBe(true);
  if (end)
    await pgStore.deliveries.endDelivery(d.forge, d.deliveryId, {
      state: end.state,
      runId: end.runId ?? null,
      detail: end.detail ?? null,
    });
  return d;
}

const openPage = (url: string) => openPageOf(browser, url);
const pwned = (page: import('playwright-core').Page) =>
  page.evaluate(() => (window as unknown as { __pwned?: unknown }).__pwned);

let opened: NewDelivery;
let redelivered: NewDelivery;
let ignored: NewDelivery;
let hostile: NewDelivery;
let pending: NewDelivery;

beforeAll(async () => {
  shots = ensureArtifactsDir();
  build = compileForBrowser();
  db = await createTestDatabase('revloop_web_service');
  const [run, b] = await Promise.all([hostileRun(db.url), launchBrowser()]);
  browser = b;
  runId = run.runId;
  findingId = run.findingId;
  pgStore = await openStore(db.url);
  const head = (await pgStore.getRun(runId))!.snapshot.head;
  opened = await deliver({ head }, { state: 'admitted', runId });
  // A second hook of the same push finds the run the first admitted.
  redelivered = await deliver({ head, event: 'pull_request/synchronize' }, { state: 'admitted', runId });
  ignored = await deliver({ pr: 8, head: 'b'.repeat(40) }, { state: 'ignored', detail: 'the diff is empty' });
  hostile = await deliver(
    {
      forge: 'gitlab',
      event: 'merge_request/update',
      repository: `group/${PAYLOAD}`,
      pr: 3,
      head: null,
      baseBranch: PAYLOAD,
      sender: PAYLOAD,
    },
    { state: 'failed', detail: `no such ref: ${PAYLOAD}` },
  );
  pending = await deliver({ pr: 9, head: 'c'.repeat(40) }, null);
  // `/revloop settle <finding> overturned <reason>` by a writer: the settle operation, with the forge identity.
  await settleFinding(
    pgStore,
    { finding: findingId, by: 'github:grace', decision: 'overturned', note: 'starting at xs[0] is intended' },
    Date.now(),
  );
  pgUi = await startUi({ store: pgStore, repoRoot: run.dir, port: 0, assetRoot: build.dir });
  sqliteDir = mkdtempSync(join(tmpdir(), 'revloop-web-noservice-'));
  sqliteStore = await openStore('sqlite:.revloop/ledger.db', { repoRoot: sqliteDir });
  sqliteUi = await startUi({ store: sqliteStore, repoRoot: sqliteDir, port: 0, assetRoot: build.dir });
}, 600_000);

afterAll(async () => {
  await browser?.close();
  await pgUi?.close();
  await pgStore?.close();
  await sqliteUi?.close();
  await sqliteStore?.close();
  if (sqliteDir) rmSync(sqliteDir, { recursive: true, force: true });
  await db?.drop();
  build?.remove();
}, 120_000);

const rowOf = (d: NewDelivery) => `#deliveries tr[data-delivery="${d.forge}:${d.deliveryId}"]`;

describe('the service page', () => {
  it('lists recent deliveries with their state, detail and the run each admitted, linked from the navigation', async () => {
    const { page, problems } = await openPage(pgUi.url);
    await page.locator('nav a[href="/service"]').click();
    await expect.poll(() => page.locator('#deliveries tbody tr').count()).toBe(5);
    expect(page.url()).toBe(`${pgUi.url}service`);
    const first = await text(page.locator(rowOf(opened)));
    expect(first).toContain('pull_request/opened');
    expect(first).toContain('acme/widgets#7');
    expect(first).toContain('admitted');
    expect(first).toContain(runId.slice(0, 14));
    expect(await text(page.locator(rowOf(redelivered)))).toContain(runId.slice(0, 14));
    const skipped = await text(page.locator(rowOf(ignored)));
    expect(skipped).toContain('acme/widgets#8');
    expect(skipped).toMatch(/ignored\s+the diff is empty/);
    expect(await text(page.locator(rowOf(pending)))).toContain('pending');
    expect(await text(page.locator('#summary'))).toContain('5 deliveries · 1 pending');
    // GitLab's merge request is written as GitLab writes it.
    expect(await text(page.locator(rowOf(hostile)))).toContain(`group/${PAYLOAD}!3`);
    await page.screenshot({ path: join(shots, 'service.png'), fullPage: true });
    expect(problems).toEqual([]);
    await page.close();
  });

  it('filters by state and by pull request, and says what a bad filter was', async () => {
    const { page, problems } = await openPage(`${pgUi.url}service`);
    await expect.poll(() => page.locator('#deliveries tbody tr').count()).toBe(5);
    await page.selectOption('select[name="state"]', 'admitted');
    await expect.poll(() => page.locator('#deliveries tbody tr').count()).toBe(2);
    expect(page.url()).toContain('state=admitted');
    await page.selectOption('select[name="state"]', '');
    await page.fill('input[name="pr"]', '8');
    await expect.poll(() => page.locator('#deliveries tbody tr').count()).toBe(1);
    expect(await page.locator(rowOf(ignored)).count()).toBe(1);
    await page.fill('input[name="pr"]', 'acme/widgets#7');
    await expect.poll(() => page.locator('#deliveries tbody tr').count()).toBe(2);
    await page.selectOption('select[name="state"]', 'failed');
    await expect.poll(() => text(page.locator('main'))).toContain('No delivery matches.');
    await page.fill('input[name="pr"]', 'seven');
    await expect
      .poll(() => text(page.locator('main .error')))
      .toContain('pr: expected a pull request number or repository#number, got "seven"');
    // A filter in the URL is applied on load.
    await page.goto(`${pgUi.url}service?state=failed`);
    await expect.poll(() => page.locator('#deliveries tbody tr').count()).toBe(1);
    expect(await page.locator(rowOf(hostile)).count()).toBe(1);
    // The one problem is the browser's note of the bad filter's 400.
    expect(problems).toEqual([
      'console: Failed to load resource: the server responded with a status of 400 (Bad Request)',
    ]);
    await page.close();
  });

  it("links a delivery to its run, whose page shows the pull request, its deliveries and the PR's settlement", async () => {
    const { page, problems } = await openPage(`${pgUi.url}service?pr=7`);
    await expect.poll(() => page.locator('#deliveries tbody tr').count()).toBe(2);
    await page.locator(`${rowOf(opened)} a.run-link`).click();
    await expect.poll(() => page.locator('#service').count()).toBe(1);
    expect(page.url()).toBe(`${pgUi.url}runs/${runId}`);
    const card = await text(page.locator('#service'));
    expect(card).toContain('acme/widgets#7 on github');
    expect(card).toContain('not yet');
    expect(await page.locator('#run-deliveries tbody tr').count()).toBe(2);
    expect(await text(page.locator('#run-deliveries'))).toContain('pull_request/synchronize');
    const finding = page.locator(`tr[data-finding="${findingId}"]`);
    const settled = await text(finding);
    expect(settled).toContain('settled: overturned');
    expect(settled).toMatch(/by github:grace\s+from the pull request acme\/widgets#7/);
    expect(settled).toContain('starting at xs[0] is intended');
    // Settled already: no form to settle it again.
    expect(await finding.locator('form.settle-form').count()).toBe(0);
    // The card's pull request leads back to its deliveries.
    await page.locator('#service a.pr').click();
    await expect.poll(() => page.locator('#deliveries tbody tr').count()).toBe(2);
    expect(new URL(page.url()).searchParams.get('pr')).toBe('acme/widgets#7');
    await page.goto(`${pgUi.url}runs/${runId}`);
    await expect.poll(() => page.locator('#service').count()).toBe(1);
    await page.screenshot({ path: join(shots, 'run-service.png'), fullPage: true });
    expect(problems).toEqual([]);
    await page.close();
  });

  it("shows a delivery's hostile fields as text and never runs them", async () => {
    const { page, problems } = await openPage(`${pgUi.url}service?state=failed`);
    const row = page.locator(rowOf(hostile));
    await expect.poll(() => row.count()).toBe(1);
    const t = await text(row);
    expect(t).toContain(`from ${PAYLOAD}`);
    expect(t).toContain(`into ${PAYLOAD}`);
    expect(await text(row.locator('td.detail'))).toBe(`no such ref: ${PAYLOAD}`);
    expect(await page.locator('main img, main script').count()).toBe(0);
    expect(await pwned(page)).toBeUndefined();
    expect(problems).toEqual([]);
    await page.close();
  });

  it('answers its API only to the bound Host, with the strict CSP, and has no write route', async () => {
    const get = (path: string, host: string) =>
      new Promise<{ status: number; csp: string | undefined }>((done, fail) => {
        const req = request({ host: '127.0.0.1', port: pgUi.port, path, headers: { host } }, (res) => {
          res.resume();
          done({ status: res.statusCode ?? 0, csp: res.headers['content-security-policy'] as string });
        });
        req.on('error', fail);
        req.end();
      });
    expect((await get('/api/service', 'evil.example')).status).toBe(403);
    expect((await get('/service', `attacker.test:${pgUi.port}`)).status).toBe(403);
    const ok = await get('/service', `127.0.0.1:${pgUi.port}`);
    expect(ok.status).toBe(200);
    expect(ok.csp).toContain("default-src 'none'");
    expect((await get('/api/service?state=lost', `127.0.0.1:${pgUi.port}`)).status).toBe(400);
    // GitLab's merge request as GitLab writes it, the repository matched whole.
    const mr = async (pr: string) =>
      (
        (await (await fetch(`${pgUi.url}api/service?pr=${encodeURIComponent(pr)}`)).json()) as {
          deliveries: { deliveryId: string }[];
        }
      ).deliveries.map((d) => d.deliveryId);
    expect(await mr(`group/${PAYLOAD}!3`)).toEqual([hostile.deliveryId]);
    expect(await mr('group!3')).toEqual([]);
    for (const method of ['POST', 'PUT', 'DELETE'])
      expect((await fetch(`${pgUi.url}api/service`, { method })).status, method).toBe(404);
  });
});

describe('without the service', () => {
  it('says on SQLite that the service is not in use', async () => {
    const { page, problems } = await openPage(`${sqliteUi.url}service`);
    await expect.poll(() => page.locator('#service-off').count()).toBe(1);
    expect(await text(page.locator('#service-off'))).toContain('The service is not in use');
    expect(await page.locator('#deliveries').count()).toBe(0);
    const api = (await (await fetch(`${sqliteUi.url}api/service`)).json()) as { inUse: boolean };
    expect(api.inUse).toBe(false);
    expect(problems).toEqual([]);
    await page.close();
  });
});
