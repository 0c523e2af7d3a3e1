/**
 * The dashboard's eval page end to end: eval reports made by `evaluate` on
 * shipped cases with real subprocess reviewers (one complete with an
 * `--against` side, one incomplete), served by the real server and read in
 * headless Chromium; then `revloop ui --eval DIR` as a user starts it.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Evaluation, evaluate } from '../../src/eval/evaluate.js';
import { OVERALL } from '../../src/eval/scores.js';
import { MemoryStore } from '../../src/store/memory.js';
import { loadEvalReports } from '../../src/web/eval-reports.js';
import { type RunningUi, startUi } from '../../src/web/start.js';
import { CORPUS, reviewerConfig } from '../eval/support.js';
import {
  builtCli,
  compileForBrowser,
  ensureArtifactsDir,
  launchBrowser,
  openPage as openPageOf,
  text,
  uiProcess,
} from './support.js';

const shipped = JSON.parse(readFileSync(join(CORPUS, 'corpus.json'), 'utf8'));

/** Shipped cases 0..4 (two clean, three known-bug), `edit`ed, with their bundles. */
function corpus(edit: (cases: Record<string, unknown>[]) => void = () => {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'revloop-evalpage-corpus-'));
  mkdirSync(join(dir, 'bundles'));
  const cases = structuredClone(shipped.cases.slice(0, 5));
  for (const c of cases) copyFileSync(join(CORPUS, c.bundle), join(dir, c.bundle));
  edit(cases);
  writeFileSync(join(dir, 'corpus.json'), JSON.stringify({ version: 1, cases }));
  return join(dir, 'corpus.json');
}

const evalOf = (file: string, against?: string): Promise<Evaluation> =>
  evaluate({
    corpus: file,
    config: reviewerConfig('oracle', 'oracle.mjs'),
    against,
    mode: 'review',
    window: 3,
    // Unconfined: the stand-in reviewer reads the corpus from the temp dir.
    env: { PATH: process.env.PATH, EVAL_CORPUS: file, REVLOOP_CONFINE: 'off' },
    bootstrap: { seed: 1, resamples: 200, level: 0.95 },
  });

let build: ReturnType<typeof compileForBrowser>;
let browser: Browser;
let ui: RunningUi;
let reportsDir: string;
let complete: Evaluation;
let partial: Evaluation;
let shots: string;

/** A page that fails the test on any script error or CSP violation. */
const openPage = (url: string) => openPageOf(browser, url);

const pct = (v: number | null) => (v === null ? 'n/a' : `${(v * 100).toFixed(1)}%`);

beforeAll(async () => {
  shots = ensureArtifactsDir();
  build = compileForBrowser();
  const good = corpus();
  const broken = corpus((cases) => {
    (cases[3] as { head: string }).head = 'deadbeefdeadbeefdeadbeefdeadbeefdeadbeef';
  });
  [complete, partial, browser] = await Promise.all([
    evalOf(good, reviewerConfig('everyfile', 'every-file.mjs')),
    evalOf(broken),
    launchBrowser(),
  ]);
  reportsDir = mkdtempSync(join(tmpdir(), 'revloop-evalpage-reports-'));
  writeFileSync(join(reportsDir, 'a-complete.json'), JSON.stringify(complete, null, 2));
  writeFileSync(join(reportsDir, 'b-partial.json'), JSON.stringify(partial, null, 2));
  ui = await startUi({
    store: new MemoryStore(),
    repoRoot: reportsDir,
    port: 0,
    assetRoot: build.dir,
    evalReports: loadEvalReports(reportsDir),
  });
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await ui?.close();
  build?.remove();
});

describe('the eval page', () => {
  it('shows per-reviewer scores with intervals, the FP rate, every case, and the --against comparison', async () => {
    const { page, problems } = await openPage(`${ui.url}eval`);
    const oracle = page.locator('#reviewers tr[data-reviewer="oracle"]');
    await expect.poll(() => oracle.count()).toBe(1);
    const card = complete.primary.reviewers.find((r) => r.reviewer === 'oracle')!;
    for (const m of ['recall', 'precision', 'f1', 'falsePositiveRate'] as const) {
      const cell = oracle.locator(`td[data-metric="${m}"]`);
      expect(await text(cell.locator('.value'))).toBe(pct(card.metrics[m]));
      const i = card.intervals[m];
      expect(await text(cell.locator('.interval'))).toBe(i ? `[${pct(i.low)}, ${pct(i.high)}]` : '');
    }
    // The oracle finds every defect: recall 100 %, with its counts beside it.
    expect(await text(oracle.locator('td[data-metric="recall"]'))).toContain(`100.0%`);
    expect(await text(oracle.locator('td[data-metric="recall"]'))).toContain(
      `${card.tally.matchedDefects}/${card.tally.defects} defects`,
    );
    expect(await text(oracle.locator('td[data-metric="falsePositiveRate"]'))).toContain('0/2 clean cases');
    expect(await text(page.locator('.headline').first())).toContain('5 of 5 cases ran');
    expect(await page.locator('.headline').first().getAttribute('data-complete')).toBe('true');
    await expect.poll(() => page.locator('#cases tbody tr').count()).toBe(5);
    expect(await page.locator('#cases tr.not-run').count()).toBe(0);
    // --against: the other side's scores and the paired differences.
    const other = complete.against!;
    const everyfile = other.other.reviewers.find((r) => r.reviewer === 'everyfile')!;
    expect(
      await text(
        page.locator('#against-reviewers tr[data-reviewer="everyfile"] td[data-metric="precision"] .value'),
      ),
    ).toBe(pct(everyfile.metrics.precision));
    expect(await page.locator('#difference tbody tr').count()).toBe(4);
    const recallDiff = other.diff.overall.recall;
    const row = await text(page.locator('#difference tr[data-metric="recall"]'));
    expect(row).toContain(
      `${recallDiff.delta! >= 0 ? '+' : ''}${(recallDiff.delta! * 100).toFixed(1)} points`,
    );
    expect(row).toContain(recallDiff.significant ? 'significant' : 'not significant');
    expect(await text(page.locator('h2:text-matches("Against")'))).toContain('everyfile');
    await page.screenshot({ path: join(shots, 'eval.png'), fullPage: true });
    expect(problems).toEqual([]);
    await page.close();
  });

  it('an incomplete eval never reads as complete: flagged, its cases listed as not run, not scored', async () => {
    const { page, problems } = await openPage(`${ui.url}eval?id=2`);
    const head = page.locator('.headline').first();
    await expect.poll(() => head.count()).toBe(1);
    expect(await head.getAttribute('data-complete')).toBe('false');
    expect(await text(head)).toContain('4 of 5 cases ran');
    expect(await text(head)).toContain('INCOMPLETE: 1 case(s) could not run and are not scored');
    const bad = partial.primary.cases.find((c) => !c.ran)!;
    expect(await text(page.locator('#not-run'))).toContain(
      `case ${bad.id}: head: commit deadbeefdeadbeefdeadbeefdeadbeefdeadbeef is not in bundle`,
    );
    const row = page.locator(`#cases tr[data-case="${bad.id}"]`);
    expect(await row.getAttribute('class')).toBe('not-run');
    expect(await text(row)).toContain('not run');
    // The picker names both reports and marks the incomplete one.
    expect(await text(page.locator('.filters'))).toContain('b-partial.json (incomplete)');
    // Overall counts only the cases that ran.
    const all = partial.primary.reviewers.find((r) => r.reviewer === OVERALL)!;
    expect(
      await text(page.locator(`#reviewers tr[data-reviewer="${OVERALL}"] td[data-metric="recall"]`)),
    ).toContain(`${all.tally.matchedDefects}/${all.tally.defects} defects`);
    await page.screenshot({ path: join(shots, 'eval-incomplete.png'), fullPage: true });
    expect(problems).toEqual([]);
    await page.close();
  });
});

describe('revloop ui --eval', () => {
  it('serves the reports given as a directory, and the page links from the nav', async () => {
    const repo = mkdtempSync(join(tmpdir(), 'revloop-evalpage-repo-'));
    spawnSync('git', ['init', '-q', repo]);
    const ui = uiProcess(['--port', '0', '--repo', repo, '--eval', reportsDir]);
    try {
      await expect
        .poll(ui.out, { timeout: 20_000 })
        .toMatch(/2 eval report\(s\) at http:\/\/127\.0\.0\.1:\d+\/eval\n/);
      const url = /http:\/\/127\.0\.0\.1:\d+\//.exec(ui.out())![0];
      const list = (await (await fetch(`${url}api/evals`)).json()) as {
        reports: { file: string; complete: boolean }[];
      };
      expect(list.reports.map((r) => [r.file, r.complete])).toEqual([
        ['a-complete.json', true],
        ['b-partial.json', false],
      ]);
      expect((await fetch(`${url}api/evals/9`)).status).toBe(404);
      const shell = await (await fetch(`${url}eval`)).text();
      expect(shell).toContain('/js/web/client/eval-page.js');
      expect(shell).toContain('href="/eval" aria-current="page"');
    } finally {
      ui.child.kill('SIGTERM');
    }
    expect(await ui.exited).toBe(0);
    expect(ui.err()).toBe('');
  }, 60_000);

  it('a file that is not an eval report: one line naming it, exit 2', () => {
    const dir = mkdtempSync(join(tmpdir(), 'revloop-evalpage-bad-'));
    writeFileSync(join(dir, 'x.json'), JSON.stringify({ corpus: 'c', primary: { label: 1 } }));
    const r = spawnSync(process.execPath, [builtCli(), 'ui', '--port', '0', '--eval', join(dir, 'x.json')], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH, REVLOOP_CONFINE: 'off' },
    });
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain(`--eval: ${join(dir, 'x.json')}: not a revloop eval report`);
  });
});
