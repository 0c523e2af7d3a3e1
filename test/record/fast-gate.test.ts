/**
 * verify is the fast path of every CI job: it must not load a model SDK, a
 * database driver, the web server or zod. Checked by running the compiled CLI
 * with a module-resolution hook that logs every module it loads.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, type Fixture, MAIN_JS, makeFixture } from './setup.js';

const HEAVY = ['openai', '@anthropic-ai', 'better-sqlite3', 'pg', 'pg-pool', 'hono', '@hono', 'zod'];

let fx: Fixture;
let dir: string;
beforeAll(async () => {
  ensureBuilt();
  fx = await makeFixture();
  dir = mkdtempSync(join(tmpdir(), 'revloop-modlog-'));
  writeFileSync(
    join(dir, 'hooks.mjs'),
    `import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const r = await next(specifier, context);
  appendFileSync(process.env.REVLOOP_MODLOG, r.url + '\\n');
  return r;
}
`,
  );
  writeFileSync(
    join(dir, 'register.mjs'),
    `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(join(dir, 'hooks.mjs')).href)});\n`,
  );
});
afterAll(() => fx?.repo.cleanup());

function loadedPackages(args: string[], log: string): string[] {
  writeFileSync(log, '');
  execFileSync(
    process.execPath,
    ['--import', pathToFileURL(join(dir, 'register.mjs')).href, MAIN_JS, ...args],
    {
      cwd: fx.repo.dir,
      env: { ...process.env, REVLOOP_MODLOG: log },
      stdio: 'ignore',
    },
  );
  const urls = readFileSync(log, 'utf8').split('\n').filter(Boolean);
  const pkgs = urls
    .map((u) => /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(u)?.[1])
    .filter((p): p is string => Boolean(p));
  expect(urls.some((u) => u.endsWith('/record/verify.js'))).toBe(true);
  return [...new Set(pkgs)];
}

describe('verify cold path', () => {
  it('loads none of the heavy packages, nor yaml for a plain config', async () => {
    const rec = fx.record(await fx.statement());
    const withKey = loadedPackages(['verify', rec, '--key', fx.teamPub], join(dir, 'a.log'));
    expect(withKey.filter((p) => HEAVY.some((h) => p === h || p.startsWith(`${h}/`)))).toEqual([]);
    expect(withKey).toEqual([]);
    const fromConfig = loadedPackages(['verify', rec], join(dir, 'b.log'));
    expect(fromConfig).toEqual([]);
  });
});
