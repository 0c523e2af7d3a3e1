/**
 * Shared setup of the dashboard tests: a private compile of the browser
 * modules, real ledgers made by the demo and by a hostile scripted
 * reviewer, and a headless Chromium.
 */
import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { type Browser, chromium, type Locator, type Page } from 'playwright-core';
import type { RunRow } from '../../src/core/ledger.js';
import { createFixtureRepo } from '../../src/git/fixture-repo.js';
import { composeDeps } from '../../src/loop/compose.js';
import { reviewRevision } from '../../src/loop/operations.js';
import type { Store } from '../../src/ports/store.js';
import { openStore } from '../../src/store/index.js';

export const ROOT = resolve(import.meta.dirname, '../..');
export const ARTIFACTS = join(ROOT, 'test-artifacts', 'web');

/**
 * Compiles the page modules (and what they import: src/sim, src/analyze) into
 * a fresh directory, the asset root the tests serve; independent of dist/,
 * which other work may be rebuilding at the same moment.
 */
export function compileForBrowser(): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(ROOT, 'test-artifacts', 'web-build-'));
  const client = ['runs', 'run', 'service', 'calibration', 'lab', 'eval'].map((p) =>
    join(ROOT, `src/web/client/${p}-page.ts`),
  );
  execFileSync(
    process.execPath,
    [
      join(ROOT, 'node_modules/typescript/bin/tsc'),
      ...['--outDir', dir, '--rootDir', join(ROOT, 'src')],
      ...['--module', 'NodeNext', '--moduleResolution', 'NodeNext', '--target', 'ES2022'],
      ...['--lib', 'ES2023,DOM', '--types', 'node', '--skipLibCheck', '--strict', '--esModuleInterop'],
      ...client,
    ],
    { cwd: ROOT, stdio: 'pipe' },
  );
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

const newest = (dir: string): number =>
  Math.max(
    0,
    ...readdirSync(dir, { withFileTypes: true }).map((e) =>
      e.isDirectory() ? newest(join(dir, e.name)) : statSync(join(dir, e.name)).mtimeMs,
    ),
  );

/**
 * The built CLI (dist/cli/main.js), for running `revloop ui` as a user does;
 * builds dist/ when our compiled files are missing or older than their
 * sources (tsc still emits when another engineer's file has a type error).
 */
export function builtCli(): string {
  const outputs = [
    'cli/main.js',
    'cli/commands/ui.js',
    'web/start.js',
    'web/server.js',
    'web/client/lab-page.js',
  ].map((o) => join(ROOT, 'dist', o));
  const oldest = Math.min(...outputs.map((o) => (existsSync(o) ? statSync(o).mtimeMs : 0)));
  if (oldest <= Math.max(newest(join(ROOT, 'src/web')), newest(join(ROOT, 'src/cli')))) {
    spawnSync(
      process.execPath,
      [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'],
      {
        cwd: ROOT,
        stdio: 'ignore',
      },
    );
  }
  for (const o of outputs) if (!existsSync(o)) throw new Error(`the build did not produce ${o}`);
  return outputs[0]!;
}

/** `revloop ui` with `args` as a user starts it (the built CLI, PATH only), its output gathered. */
export function uiProcess(
  args: string[],
  cwd?: string,
): { child: ChildProcess; out: () => string; err: () => string; exited: Promise<number | null> } {
  const child = spawn(process.execPath, [builtCli(), 'ui', ...args], {
    ...(cwd ? { cwd } : {}),
    env: { PATH: process.env.PATH },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (d) => {
    out += d;
  });
  let err = '';
  child.stderr?.on('data', (d) => {
    err += d;
  });
  const exited = new Promise<number | null>((done) => child.on('exit', (c) => done(c)));
  return { child, out: () => out, err: () => err, exited };
}

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
      '--disable-quic',
      '--disable-sync',
    ],
  });
}

/** A page of `browser` at `url` whose `problems` collect every script error and CSP violation, for the test to assert empty. */
export async function openPage(browser: Browser, url: string): Promise<{ page: Page; problems: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`);
  });
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => {
      console.error(`CSP violation: ${e.violatedDirective} ${e.blockedURI}`);
    });
  });
  await page.goto(url);
  return { page, problems };
}

/** Rendered text of a locator. */
// biome-ignore lint/performance/useDomNodeTextContent: Playwright's Locator.innerText, not the DOM property
export const text = (l: Locator): Promise<string> => l.innerText();

/** What a hostile reviewer writes: markup that would run if the page ever parsed it as HTML. */
export const PAYLOAD = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=1</script>';

/**
 * A repository reviewed by one scripted reviewer whose finding's claim (and
 * the change's name) is {@link PAYLOAD}; no fixer, so the run ends
 * `findings`/`review_only` with the finding blocking, waiting for a person.
 */
export async function hostileRun(
  storeUrl = 'sqlite:.revloop/ledger.db',
): Promise<{ dir: string; runId: string; findingId: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'revloop-web-xss-'));
  const repo = await createFixtureRepo(dir);
  const script = {
    pwn: {
      '*': {
        reply: {
          verdict: 'findings',
          findings: [
            {
              severity: 'MAJOR',
              file: 'src/total.js',
              line: 2,
              claim: PAYLOAD,
              failureScenario: `Calling total([1, 2]) returns 4 instead of 3: the loop adds the first element twice. ${PAYLOAD}`,
            },
          ],
        },
      },
    },
  };
  await repo.commit(
    {
      '.gitignore': '.revloop/\n',
      'REVIEW.md': '# Rules\n\nR1. Sums are exact.\n',
      'revloop.config.yaml':
        'criteria: REVIEW.md\nreviewers:\n  - { name: pwn, adapter: scripted, script: review/replies.json }\nbudgets: { rounds: 2, wallSeconds: 120, costUsd: 1 }\n',
      'review/replies.json': JSON.stringify(script),
      'src/total.js':
        'export const total = (xs) => {\n  let s = 0;\n  for (const x of xs) s += x;\n  return s;\n};\n',
    },
    'total',
  );
  await repo.branch('feature/total');
  await repo.commit(
    {
      'src/total.js':
        'export const total = (xs) => {\n  let s = xs[0] ?? 0;\n  for (const x of xs) s += x;\n  return s;\n};\n',
    },
    'total: start from the first element',
  );
  return reviewIn(
    dir,
    { headRef: 'feature/total', change: `feature/total ${PAYLOAD}` },
    async (store, run) => {
      const f = (await store.listFindings(run.id))[0];
      if (!f) throw new Error(`hostile run has no finding (status ${run.status} ${run.detail})`);
      return { dir, runId: run.id, findingId: f.id };
    },
    storeUrl,
  );
}

/**
 * A run whose diff is reviewed in chunks (review.chunkBytes 1000, four source
 * files) by two scripted reviewers, with a vendored file the ignore rules
 * leave out: reviewer `a` raises a finding on it (dropped), `b` passes.
 */
export async function chunkedRun(): Promise<{ dir: string; runId: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'revloop-web-chunks-'));
  const repo = await createFixtureRepo(dir);
  const onVendored = { severity: 'MINOR', file: 'vendor/lib.js', line: 1, claim: 'vendored code style' };
  const script = {
    a: { '*': { reply: { verdict: 'findings', findings: [onVendored] } } },
    b: { '*': { reply: { verdict: 'pass', findings: [] } } },
  };
  await repo.commit(
    {
      '.gitignore': '.revloop/\n',
      'REVIEW.md': '# Rules\n\nR1. Be correct.\n',
      'revloop.config.yaml': [
        'criteria: REVIEW.md',
        'reviewers:',
        '  - { name: a, adapter: scripted, script: review/replies.json }',
        '  - { name: b, adapter: scripted, script: review/replies.json }',
        'ignore: ["vendor/**"]',
        'review: { chunkBytes: 1000 }',
        'budgets: { rounds: 1, wallSeconds: 120, costUsd: 1 }',
        '',
      ].join('\n'),
      'review/replies.json': JSON.stringify(script),
    },
    'config',
  );
  await repo.branch('feature/many');
  const body = (n: string) =>
    Array.from({ length: 20 }, (_, i) => `export const ${n}${i} = ${i};\n`).join('');
  await repo.commit(
    {
      ...Object.fromEntries(['a', 'b', 'c', 'd'].map((n) => [`src/${n}.js`, body(n)])),
      'vendor/lib.js': body('v'),
    },
    'four files and a vendored one',
  );
  return reviewIn(dir, { headRef: 'feature/many' }, async (_, run) => ({ dir, runId: run.id }));
}

/** Reviews `headRef` against `main` in `dir` on its ledger (SQLite by default), then reads what `then` needs of the run. */
async function reviewIn<T>(
  dir: string,
  req: { headRef: string; change?: string },
  then: (store: Store, run: RunRow) => Promise<T>,
  storeUrl = 'sqlite:.revloop/ledger.db',
): Promise<T> {
  const store = await openStore(storeUrl, { repoRoot: dir });
  try {
    const deps = composeDeps({ store, repoRoot: dir, env: { PATH: process.env.PATH } });
    const res = await reviewRevision(deps, { repoDir: dir, baseRef: 'main', configFrom: 'base', ...req });
    if (res.kind !== 'run') throw new Error(`${req.headRef}: run deferred: ${res.detail}`);
    return await then(store, res.run);
  } finally {
    await store.close();
  }
}

export function ensureArtifactsDir(): string {
  mkdirSync(ARTIFACTS, { recursive: true });
  return ARTIFACTS;
}
