import { request } from 'node:http';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { roundLog } from '../../src/core/run-report.js';
import { runDemo } from '../../src/demo/run-demo.js';
import type { Store } from '../../src/ports/store.js';
import { openStore } from '../../src/store/index.js';
import { type RunningUi, startUi } from '../../src/web/start.js';
import {
  chunkedRun,
  compileForBrowser,
  ensureArtifactsDir,
  hostileRun,
  launchBrowser,
  openPage as openPageOf,
  PAYLOAD,
  ROOT,
  text,
  uiProcess,
} from './support.js';

interface Served {
  ui: RunningUi;
  store: Store;
  dir: string;
}

let build: ReturnType<typeof compileForBrowser>;
let browser: Browser;
let demo: Served & { runId: string };
let oscillation: Served & { runId: string; log: unknown };
let hostile: Served & { runId: string; findingId: string };
let chunked: Served & { runId: string };
let shots: string;

async function serve(dir: string): Promise<Served> {
  const store = await openStore('sqlite:.revloop/ledger.db', { repoRoot: dir });
  const ui = await startUi({ store, repoRoot: dir, port: 0, assetRoot: build.dir });
  return { ui, store, dir };
}

/** A page that fails the test on any script error or CSP violation. */
const openPage = (url: string) => openPageOf(browser, url);

const shot = (page: Page, name: string) =>
  page.screenshot({ path: join(shots, `${name}.png`), fullPage: true });

beforeAll(async () => {
  shots = ensureArtifactsDir();
  build = compileForBrowser();
  const env = { PATH: process.env.PATH };
  const [d, o, h, c, b] = await Promise.all([
    runDemo({ scenario: 'default', env }),
    runDemo({ scenario: 'oscillation', env }),
    hostileRun(),
    chunkedRun(),
    launchBrowser(),
  ]);
  browser = b;
  demo = { ...(await serve(d.dir)), runId: d.report.run.id };
  oscillation = { ...(await serve(o.dir)), runId: o.report.run.id, log: roundLog(o.report) };
  hostile = { ...(await serve(h.dir)), runId: h.runId, findingId: h.findingId };
  chunked = { ...(await serve(c.dir)), runId: c.runId };
  // Three loops, a browser bundle and a browser start: seconds alone, minutes on a loaded machine.
}, 600_000);

afterAll(async () => {
  await browser?.close();
  for (const s of [demo, oscillation, hostile, chunked]) {
    await s?.ui.close();
    await s?.store.close();
  }
  build?.remove();
}, 120_000);

describe('pages', () => {
  it('lists the runs of a real ledger, with filters', async () => {
    const { page, problems } = await openPage(oscillation.ui.url);
    const row = page.locator(`#runs tr[data-run="${oscillation.runId}"]`);
    await expect.poll(() => row.count()).toBe(1);
    const rowText = await text(row);
    expect(rowText).toContain('feature/refunds');
    expect(rowText).toContain('completed');
    expect(rowText).toContain('findings');
    expect(rowText).toContain('no_progress');
    await page.fill('input[name="change"]', 'no-such-change');
    await expect.poll(() => page.locator('#runs').count()).toBe(0);
    await expect.poll(() => text(page.locator('.empty'))).toContain('No runs match');
    await page.fill('input[name="change"]', 'refunds');
    await page.selectOption('select[name="outcome"]', 'findings');
    await page.selectOption('select[name="stop"]', 'no_progress');
    await expect.poll(() => row.count()).toBe(1);
    expect(page.url()).toContain('stop=no_progress');
    await shot(page, 'runs');
    expect(problems).toEqual([]);
    await page.close();
  });

  it("shows a run's rounds: verdicts, gating, refutation, decision, fix diff, checks and the record", async () => {
    const { page, problems } = await openPage(`${demo.ui.url}runs/${demo.runId}`);
    await expect.poll(() => page.locator('section.round[data-round]').count()).toBe(3); // round 0 + 2 rounds
    // The check fails on the change and passed at the base: both tables, and round 1's blocker names it.
    const r0 = page.locator('section.round[data-round="0"]');
    expect(await r0.locator('table.checks').count()).toBe(2);
    expect(await text(r0.locator('p.base-checks'))).toContain('again at the base');
    const r1 = page.locator('section.round[data-round="1"]');
    const t1 = await text(r1);
    expect(t1).toContain('The check credits-add-up fails at');
    expect(t1).toMatch(/correctness:\s*findings/);
    expect(t1).toContain('no scenario or clause (U1)');
    expect(t1).toMatch(/refuted\s+by refuter/);
    expect(t1).toMatch(/upheld\s+by refuter/);
    expect(t1).toContain('1 blocker(s) go to the fixer');
    await r1.locator('details:has(> summary:text("Show the fix diff")) > summary').click();
    await expect.poll(() => r1.locator('pre.diff .add').count()).toBeGreaterThan(0);
    expect(await text(r1.locator('table.checks'))).toContain('credits-add-up');
    const r2 = await text(page.locator('section.round[data-round="2"]'));
    expect(r2).toContain('checks now passing: credits-add-up');
    expect(r2).toContain('stop: clear');
    // The record exists; the checkout is not at its commit, and the page says so with the code.
    await expect.poll(() => text(page.locator('#verify'))).toMatch(/verif/);
    const verify = await text(page.locator('#verify'));
    expect(verify).toMatch(/verifies|does not verify: \w+/);
    await shot(page, 'run');
    expect(problems).toEqual([]);
    await page.close();
  });

  it("shows a chunked review as one verdict per reviewer with its parts, and the round's coverage", async () => {
    const { page, problems } = await openPage(`${chunked.ui.url}runs/${chunked.runId}`);
    const r1 = page.locator('section.round[data-round="1"]');
    await expect.poll(() => r1.locator('.verdicts .chip').count()).toBe(2);
    const a = await text(r1.locator('.verdicts .chip[data-reviewer="a"]'));
    const b = await text(r1.locator('.verdicts .chip[data-reviewer="b"]'));
    const parts = Number(/(\d+) parts/.exec(b)?.[1]);
    expect(parts).toBeGreaterThan(1);
    expect(a).toMatch(new RegExp(`a:\\s*findings · findings in ${parts} of ${parts} parts`));
    expect(b).toMatch(new RegExp(`b:\\s*pass · ${parts} parts`));
    const coverage = await text(r1.locator('dl.coverage'));
    expect(coverage).toMatch(/a 4 of 4 files\s*complete · b 4 of 4 files\s*complete/);
    expect(coverage).toContain("1 file left out by the config's ignore rules");
    expect(coverage).toContain(`${parts} findings on ignored paths`);
    await r1.locator('dl.coverage details > summary').first().click();
    expect(await text(r1.locator('dl.coverage details').first())).toContain(
      'vendor/lib.js (ignore: "vendor/**")',
    );
    await shot(page, 'run-chunked');
    expect(problems).toEqual([]);
    await page.close();
  });

  it('shows the escalation of a run the stop rule ended, and the scope lock', async () => {
    const { page, problems } = await openPage(`${oscillation.ui.url}runs/${oscillation.runId}`);
    await expect.poll(() => page.locator('#escalation').count()).toBe(1);
    expect(await text(page.locator('#escalation'))).toContain('Blocking counts by round');
    expect(await text(page.locator('main'))).toContain('scope lock: passed at');
    await shot(page, 'run-escalation');
    expect(problems).toEqual([]);
    await page.close();
  });

  it('shows the calibration ledger across runs with its chart', async () => {
    const { page, problems } = await openPage(`${oscillation.ui.url}calibration`);
    await expect.poll(() => page.locator('#ledger tbody tr').count()).toBeGreaterThan(0);
    const ledger = await text(page.locator('#ledger'));
    expect(ledger).toContain('standards');
    expect(ledger).toContain('correctness');
    expect(await page.locator('#calibration-chart canvas').count()).toBe(1);
    await shot(page, 'calibration');
    expect(problems).toEqual([]);
    await page.close();
  });
  it('refreshes the list every 2 s while a run is active', async () => {
    const base = (await demo.store.getRun(demo.runId))!;
    const runId = `rlive${Date.now().toString(36)}`;
    const admitted = await demo.store.admit({
      runId,
      admissionKey: `live-${runId}`,
      changeKey: base.changeKey,
      repo: base.repo,
      snapshotKey: `live-${runId}`,
      snapshot: { ...base.snapshot, change: 'live/refresh' },
    });
    expect(admitted.kind).toBe('created');
    const { page, problems } = await openPage(demo.ui.url);
    const row = page.locator(`#runs tr[data-run="${runId}"]`);
    await expect.poll(() => text(row)).toContain('queued');
    expect(await text(page.locator('#summary'))).toContain('1 active, refreshing every 2 s');
    const lease = await demo.store.acquireLease(
      runId,
      { id: `test:${process.pid}`, host: 'test', pid: process.pid },
      30_000,
    );
    await demo.store.finishRun(lease!, {
      status: 'failed',
      outcome: null,
      stopReason: null,
      reason: 'interrupted',
      detail: 'ended by the dashboard test',
    });
    const ended = Date.now();
    await expect.poll(() => text(row), { timeout: 20_000, interval: 100 }).toContain('failed');
    expect(Date.now() - ended).toBeLessThan(20_000);
    expect(await text(row)).toContain('interrupted');
    expect(problems).toEqual([]);
    await page.close();
  });
});

describe('Loop Lab', () => {
  it('redraws the chart promptly after a slider move (300 trials), computed in the page', async () => {
    const { page, problems } = await openPage(`${demo.ui.url}lab`);
    await expect.poll(() => page.locator('#sim-chart canvas').count()).toBe(1);
    const move = async (key: string, value: number): Promise<number> =>
      page.evaluate(
        ([k, v]) =>
          new Promise<number>((done) => {
            const before = Number(document.body.dataset.redraws ?? '0');
            const input = document.querySelector<HTMLInputElement>(`input[name="${k}"]`)!;
            input.value = String(v);
            input.dispatchEvent(new Event('input', { bubbles: true }));
            const wait = () =>
              Number(document.body.dataset.redraws ?? '0') > before
                ? done(Number(document.body.dataset.redrawMs))
                : requestAnimationFrame(wait);
            wait();
          }),
        [key, value] as const,
      );
    expect(await page.locator('input[name="trials"]').inputValue()).toBe('300');
    await move('seed', 2); // warm-up: first calls compile the simulator
    const moves: [string, number][] = [
      ['falsePositive', 0.3],
      ['oscillation', 0.4],
      ['fixSuccess', 0.6],
      ['vague', 0.2],
      ['detection', 0.9],
      ['inflation', 0.25],
      ['seed', 7],
    ];
    const requests: string[] = [];
    page.on('request', (r) => requests.push(r.url()));
    const times: number[] = [];
    for (const [k, v] of moves) times.push(await move(k, v));
    const sorted = [...times].sort((a, b) => a - b);
    const median = sorted[sorted.length >> 1]!;
    console.log(
      `Loop Lab redraw (300 trials/side): ${times.map((t) => t.toFixed(1)).join(', ')} ms; median ${median.toFixed(1)} ms`,
    );
    // The 50 ms target is a timing figure (`npm run bench` times the 300-trial simulation), never a
    // verdict here: a loaded machine stretches it. What makes a redraw prompt is checked instead:
    // every move redrew (move() waits for it) and none asked the server for anything.
    expect(times).toHaveLength(moves.length);
    expect(requests).toEqual([]);
    expect(await text(page.locator('#redraw-time'))).toContain('300 + 300 trials');
    // A toggle changes the configuration series.
    await page.uncheck('#u-U4');
    await expect.poll(() => text(page.locator('#sim-chart'))).toContain('U1+U2+U3');
    // U5 and U6 are toggles too; U5's sliders keep block at most n, whichever one moves.
    await page.check('#u-U5');
    await expect.poll(() => text(page.locator('#sim-chart'))).toContain('U1+U2+U3+U5');
    await move('block', 5);
    expect(await page.locator('input[name="samples"]').inputValue()).toBe('5');
    await move('samples', 2);
    expect(await page.locator('input[name="block"]').inputValue()).toBe('2');
    expect(await text(page.locator('#sim-outcomes'))).toContain('Reviewer / refuter calls');
    expect(await text(page.locator('#sim-error'))).toBe('');
    await shot(page, 'lab');
    expect(problems).toEqual([]);
    await page.close();
  });

  it("renders a pasted round log's chart and ledger with the analyzer", async () => {
    const { page, problems } = await openPage(`${demo.ui.url}lab`);
    await page.fill('#round-log', JSON.stringify(oscillation.log, null, 2));
    await expect.poll(() => page.locator('#analyze-ledger tbody tr').count()).toBeGreaterThan(0);
    const ledger = await text(page.locator('#analyze-ledger'));
    expect(ledger).toContain('standards');
    expect(ledger).toContain('correctness');
    expect(await text(page.locator('#analyze-verdict'))).toMatch(/converged/i);
    expect(await page.locator('#analyze-chart canvas').count()).toBe(1);
    await page.locator('#analyze-out').scrollIntoViewIfNeeded();
    await shot(page, 'lab-analyze');
    await page.fill(
      '#round-log',
      '{"rounds": [{"findings": [{"reviewer": "a", "severity": "HUGE", "overturned": false}]}]}',
    );
    await expect
      .poll(() => text(page.locator('#analyze-out .error')))
      .toContain('$.rounds[0].findings[0].severity');
    expect(problems).toEqual([]);
    await page.close();
  });
});

describe('security', () => {
  it('shows a hostile claim as text and never runs it', async () => {
    const { page, problems } = await openPage(`${hostile.ui.url}runs/${hostile.runId}`);
    const row = page.locator(`tr[data-finding="${hostile.findingId}"]`);
    await expect.poll(() => row.count()).toBe(1);
    expect(await text(row.locator('.finding-claim'))).toBe(PAYLOAD);
    expect(await page.locator('main img, main script').count()).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: unknown }).__pwned)).toBeUndefined();
    await shot(page, 'run-hostile');
    await page.goto(hostile.ui.url);
    await expect.poll(() => page.locator('#runs tbody tr').count()).toBe(1);
    expect(await text(page.locator('#runs'))).toContain(PAYLOAD);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: unknown }).__pwned)).toBeUndefined();
    expect(problems).toEqual([]);
    await page.close();
  });

  it('settles a finding from the page with the token, and refuses without it', async () => {
    const { page } = await openPage(`${hostile.ui.url}runs/${hostile.runId}`);
    const row = page.locator(`tr[data-finding="${hostile.findingId}"]`);
    await expect.poll(() => row.count()).toBe(1);
    const url = `/api/findings/${hostile.findingId}/settle`;
    const post = (headers: Record<string, string>) =>
      page.evaluate(
        async ([u, h]) =>
          (
            await fetch(u, {
              method: 'POST',
              headers: { 'content-type': 'application/json', ...h },
              body: '{"by":"mallory","decision":"overturned"}',
            })
          ).status,
        [url, headers] as const,
      );
    expect(await post({})).toBe(403);
    expect(await post({ 'x-revloop-token': 'not-the-token' })).toBe(403);
    expect((await hostile.store.getFinding(hostile.findingId))?.settlement).toBeNull();

    await row.locator('details.settle > summary').click();
    await row.locator('input[name="by"]').fill('Ada Lovelace');
    await row.locator('select[name="decision"]').selectOption('overturned');
    await row.locator('input[name="note"]').fill('the sum starts at xs[0] on purpose');
    await row.locator('button[type="submit"]').click();
    await expect
      .poll(() => text(page.locator(`tr[data-finding="${hostile.findingId}"]`)))
      .toContain('settled: overturned');
    const f = await hostile.store.getFinding(hostile.findingId);
    expect(f?.settlement).toMatchObject({
      by: 'Ada Lovelace',
      decision: 'overturned',
      note: 'the sum starts at xs[0] on purpose',
    });
    // Settled once: a second settlement is refused.
    expect(await post({ 'x-revloop-token': hostile.ui.token })).toBe(409);
    await page.close();
  });

  it('refuses a foreign Host header (DNS rebinding), serves only the allowed files, and sets a strict CSP', async () => {
    const get = (path: string, host: string) =>
      new Promise<{ status: number; csp: string | undefined }>((done, fail) => {
        const req = request({ host: '127.0.0.1', port: demo.ui.port, path, headers: { host } }, (res) => {
          res.resume();
          done({
            status: res.statusCode ?? 0,
            csp: res.headers['content-security-policy'] as string | undefined,
          });
        });
        req.on('error', fail);
        req.end();
      });
    const own = `127.0.0.1:${demo.ui.port}`;
    expect((await get('/api/runs', 'evil.example')).status).toBe(403);
    expect((await get('/', `attacker.test:${demo.ui.port}`)).status).toBe(403);
    expect((await get('/', `127.0.0.1:${demo.ui.port + 1}`)).status).toBe(403);
    const ok = await get('/', own);
    expect(ok.status).toBe(200);
    expect(ok.csp).toContain("default-src 'none'");
    expect(ok.csp).toMatch(/script-src 'self' 'sha256-[A-Za-z0-9+/=]+'(;|$)/);
    expect((await get('/js/sim/index.js', own)).status).toBe(200);
    expect((await get('/vendor/zod/index.js', own)).status).toBe(200);
    for (const p of [
      '/js/cli/main.js',
      '/js/store/index.js',
      '/js/web/client/../../cli/main.js',
      '/js/%2e%2e/package.json',
      '/vendor/zod/package.json',
      '/vendor/zod/../hono/package.json',
    ])
      expect((await get(p, own)).status, p).toBe(404);
    // The only write is settle: other methods find no route.
    const res = await fetch(`${demo.ui.url}api/runs`, { method: 'POST' });
    expect(res.status).toBe(404);
  });
});

describe('revloop ui', () => {
  it('prints its URL, serves until SIGTERM, then exits 0', async () => {
    const ui = uiProcess(['--port', '0', '--repo', demo.dir], ROOT);
    await expect.poll(ui.out, { timeout: 10_000 }).toMatch(/revloop ui: http:\/\/127\.0\.0\.1:\d+\/\n/);
    const url = /http:\/\/127\.0\.0\.1:\d+\//.exec(ui.out())![0];
    const res = await fetch(`${url}api/runs`);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { runs: { id: string }[] }).runs.map((r) => r.id)).toContain(demo.runId);
    const page = await fetch(url);
    expect(await page.text()).toContain('/js/web/client/runs-page.js');
    ui.child.kill('SIGTERM');
    expect(await ui.exited).toBe(0);
    expect(ui.err()).toBe('');
  });
});
