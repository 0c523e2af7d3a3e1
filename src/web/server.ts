/**
 * The dashboard as a Hono app: page shells, static modules, a read-only JSON
 * API over the ledger, and one write (a named person's settlement) guarded by
 * the per-process token. Every response carries a strict CSP; a request whose
 * Host header is not the bound address is refused before any route runs.
 */
import { resolve } from 'node:path';
import { type Context, Hono } from 'hono';
import { type ErrorCode, RevloopError } from '../core/errors.js';
import { stage } from '../core/stage-results.js';
import { DiffTooLargeError } from '../git/errors.js';
import { createGit } from '../git/index.js';
import { loadOutputReport } from '../loop/outputs/run-report-loader.js';
import { settleFinding } from '../loop/settle.js';
import type { GitBlobs, GitDiffs, GitRevisions } from '../ports/git.js';
import type { LedgerQueries, RunLedger } from '../ports/store.js';
import { verifyRecordFile } from '../record/verify.js';
import { assetStore, defaultAssetRoot, type StaticFile } from './assets.js';
import { registerEvalRoutes } from './eval-page.js';
import type { EvalReports } from './eval-reports.js';
import { IMPORT_MAP_HASH, type PageName, pageShell } from './html.js';
import { calibration, findingView, runDetail, runSummary } from './run-view.js';
import { contentSecurityPolicy, hostAllowed, TOKEN_HEADER, tokenMatches } from './security.js';
import { parseServiceQuery, runService, type ServiceStore, serviceResponse } from './service-view.js';
import { APP_CSS } from './styles.js';
import type { DiffView, RunDetail, RunsResponse, VerifyView } from './view-types.js';

export interface AppOptions {
  /** The ledger; its service role feeds the service page (read only, like every route but settle). */
  store: LedgerQueries & Pick<RunLedger, 'settle'> & ServiceStore;
  /** The repository the ledger belongs to: fix diffs and record verification read it. */
  repoRoot: string;
  /** The per-process token the settle route requires. */
  token: string;
  /** Host headers to accept (`127.0.0.1:7357`, ...): read per request, so it can be set after listening. */
  hosts: () => readonly string[];
  /** Directory holding the compiled browser modules (default: this package's dist/). */
  assetRoot?: string | undefined;
  git?: (GitRevisions & GitDiffs & GitBlobs) | undefined;
  now?: (() => number) | undefined;
  /** Eval reports for the eval page (`revloop ui --eval`); null: the page says how to give one. */
  evalReports?: EvalReports | null | undefined;
  /** The environment of the process serving: its secrets are redacted from every run shown. */
  env?: NodeJS.ProcessEnv | undefined;
}

/** The HTTP status of each way settle refuses (the message is the operation's, as the CLI prints it). */
const SETTLE_STATUS: Partial<Record<ErrorCode, 400 | 404 | 409>> = {
  usage: 400,
  unknown_finding: 404,
  already_settled: 409,
};

/** Largest fix diff the page shows. */
const MAX_DIFF_BYTES = 512 * 1024;
/** Runs the list and the calibration read at most. */
const MAX_RUNS = 500;

const CSP = contentSecurityPolicy([IMPORT_MAP_HASH]);

const split = (v: string | undefined): string[] | undefined =>
  v ? v.split(',').filter((x) => x.length > 0) : undefined;

/** Builds the dashboard app; `startUi` serves it, tests may call `app.request` directly. */
export function createApp(o: AppOptions): Hono {
  const app = new Hono();
  const git = o.git ?? createGit();
  const now = o.now ?? Date.now;
  const assets = assetStore(o.assetRoot ?? defaultAssetRoot());

  app.use('*', async (c, next) => {
    if (!hostAllowed(o.hosts(), c.req.header('host'))) {
      c.header('Content-Security-Policy', CSP);
      return c.text('forbidden: unexpected Host header\n', 403);
    }
    await next();
    c.header('Content-Security-Policy', CSP);
    c.header('X-Content-Type-Options', 'nosniff');
    c.header('X-Frame-Options', 'DENY');
    c.header('Referrer-Policy', 'no-referrer');
    c.header('Cross-Origin-Opener-Policy', 'same-origin');
    c.header('Cache-Control', 'no-store');
  });

  const page = (name: PageName) => (c: Context) => c.html(pageShell(name, o.token));
  app.get('/', page('runs'));
  app.get('/runs/:id', page('run'));
  app.get('/calibration', page('calibration'));
  app.get('/lab', page('lab'));
  app.get('/service', page('service'));
  registerEvalRoutes(app, o.evalReports ?? null, page('eval'));

  const serve = (file: StaticFile | null, c: Context) =>
    file ? c.body(file.body, 200, { 'Content-Type': file.type }) : c.notFound();
  app.get('/favicon.ico', (c) => c.body(null, 204));
  app.get('/assets/app.css', (c) => c.body(APP_CSS, 200, { 'Content-Type': 'text/css; charset=utf-8' }));
  app.get('/assets/uplot.css', async (c) => serve(await assets.uplotCss(), c));
  app.get('/assets/uplot.js', async (c) => serve(await assets.uplotJs(), c));
  app.get('/js/*', async (c) => serve(await assets.module(c.req.path.slice('/js/'.length)), c));
  app.get('/vendor/zod/*', async (c) => serve(await assets.zod(c.req.path.slice('/vendor/zod/'.length)), c));

  app.get('/api/runs', async (c) => {
    const q = c.req.query();
    const all = await o.store.listRuns({
      limit: Number(q.limit) > 0 ? Math.min(Number(q.limit), MAX_RUNS) : MAX_RUNS,
    });
    const status = split(q.status);
    const outcome = split(q.outcome);
    const stop = split(q.stop);
    const change = q.change?.trim().toLowerCase();
    const runs = all
      .filter(
        (r) =>
          (!status || status.includes(r.status)) &&
          (!outcome || outcome.includes(r.outcome ?? 'none')) &&
          (!stop || stop.includes(r.stopReason ?? 'none')) &&
          (!change || r.snapshot.change.toLowerCase().includes(change) || r.id.startsWith(change)),
      )
      .map(runSummary);
    const distinct = (xs: (string | null)[]) => [...new Set(xs.map((x) => x ?? 'none'))].sort();
    const body: RunsResponse = {
      now: now(),
      runs,
      facets: {
        statuses: distinct(all.map((r) => r.status)),
        outcomes: distinct(all.map((r) => r.outcome)),
        stopReasons: distinct(all.map((r) => r.stopReason)),
      },
    };
    return c.json(body);
  });

  app.get('/api/runs/:id', async (c) => {
    const report = await loadOutputReport(o.store, c.req.param('id'), o.env ?? {});
    if (!report) return c.json({ error: 'no such run' }, 404);
    const body: RunDetail = {
      ...runDetail(report, now()),
      service: await runService(o.store, report.run.id),
    };
    return c.json(body);
  });

  app.get('/api/service', async (c) => {
    const filter = parseServiceQuery(c.req.query());
    if ('error' in filter) return c.json({ error: filter.error }, 400);
    return c.json(await serviceResponse(o.store, filter, now()));
  });

  app.get('/api/runs/:id/rounds/:round/diff', async (c) => {
    const id = c.req.param('id');
    const round = Number(c.req.param('round'));
    const fix = stage(await o.store.listStages(id), round, 'fix');
    if (!fix?.commit) return c.json({ error: 'this round made no fix commit' }, 404);
    let text: string;
    let truncated = false;
    try {
      text = await git.diffText(o.repoRoot, fix.from, fix.commit, MAX_DIFF_BYTES);
    } catch (err) {
      if (!(err instanceof DiffTooLargeError)) {
        const msg = err instanceof RevloopError ? err.message : String(err);
        return c.json({ error: `cannot read the fix diff: ${msg}` }, 409);
      }
      text = '';
      truncated = true;
    }
    const body: DiffView = { from: fix.from, commit: fix.commit, text, truncated };
    return c.json(body);
  });

  app.get('/api/runs/:id/verify', async (c) => {
    const run = await o.store.getRun(c.req.param('id'));
    if (!run) return c.json({ error: 'no such run' }, 404);
    if (!run.recordPath) {
      const body: VerifyView = {
        recordPath: null,
        ok: false,
        code: 'no_record',
        reason: 'this run wrote no record',
      };
      return c.json(body);
    }
    const path = resolve(o.repoRoot, run.recordPath);
    const res = await verifyRecordFile(path, { git, repo: o.repoRoot });
    const body: VerifyView = { recordPath: path, ok: res.ok, code: res.code, reason: res.reason };
    return c.json(body);
  });

  app.get('/api/calibration', async (c) => {
    const runs = await o.store.listRuns({ limit: MAX_RUNS });
    const reports = await Promise.all(
      runs.map(async (run) => {
        const [rounds, findings] = await Promise.all([
          o.store.listRounds(run.id),
          o.store.listFindings(run.id),
        ]);
        return { run, rounds, findings };
      }),
    );
    return c.json(calibration(reports));
  });

  app.post('/api/findings/:id/settle', async (c) => {
    if (!tokenMatches(o.token, c.req.header(TOKEN_HEADER)))
      return c.json({ error: 'missing or wrong token' }, 403);
    const body = (await c.req.json().catch(() => null)) as Record<string, unknown> | null;
    try {
      const { finding } = await settleFinding(
        o.store,
        { finding: c.req.param('id'), by: body?.by, decision: body?.decision, note: body?.note },
        now(),
      );
      return c.json({ finding: findingView(finding) });
    } catch (err) {
      if (err instanceof RevloopError) return c.json({ error: err.message }, SETTLE_STATUS[err.code] ?? 409);
      throw err;
    }
  });

  app.notFound((c) => c.json({ error: 'not found' }, 404));
  return app;
}
