/**
 * Plain users: a tarball of a commit of this repository, as GitHub serves one
 * (`/archive/refs/tags/<tag>.tar.gz`; here `git archive`), installed with
 * `npm install -g` into an empty prefix, gives a `revloop` that runs:
 * `--version` and the whole `demo`. The installed package has no dist/: the
 * command runs the committed bundle, with the SQLite driver npm installed
 * beside it. npm fetches what its cache lacks from the registry. And `npm
 * pack` of a fresh clone (no node_modules) does not fail in `prepare`.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { TEST_GIT_ENV } from '../helpers/git-repo.js';
import { ROOT } from '../loop/helpers.js';

const temp = mkdtempSync(join(tmpdir(), 'revloop-install-'));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

const run = (cmd: string, args: string[], cwd: string) =>
  execFileSync(cmd, args, { cwd, encoding: 'utf8', env: { ...process.env, ...TEST_GIT_ENV }, stdio: 'pipe' });

describe('npm install -g of a checkout', () => {
  it('installs a revloop that prints its version and runs the demo', () => {
    const clone = join(temp, 'revloop');
    run('git', ['init', '-q', clone], temp);
    run('git', ['fetch', '-q', '--depth=1', ROOT, 'HEAD'], clone);
    run('git', ['checkout', '-q', 'FETCH_HEAD'], clone);
    const tarball = join(temp, 'revloop.tar.gz');
    run('git', ['archive', '--format=tar.gz', '--prefix=revloop/', '-o', tarball, 'HEAD'], clone);
    const prefix = join(temp, 'prefix');
    run(
      'npm',
      ['install', '-g', '--prefix', prefix, '--prefer-offline', '--no-audit', '--no-fund', tarball],
      temp,
    );
    expect(existsSync(join(prefix, 'lib/node_modules/revloop/dist'))).toBe(false);
    const revloop = join(prefix, 'bin/revloop');
    const pkg = JSON.parse(run('git', ['show', 'HEAD:package.json'], clone)) as { version: string };
    expect(run(revloop, ['--version'], temp).trim()).toBe(pkg.version);
    const demoDir = join(temp, 'demo');
    mkdirSync(demoDir);
    const demo = run(revloop, ['demo'], demoDir);
    expect(demo).toMatch(/revloop verify \S+\.revloop\/records\/r\w+\.json/);
    // `npm pack` runs prepare; with no tsc in reach it builds nothing and does not fail.
    expect(run(process.execPath, ['scripts/prepare.mjs'], clone)).toContain('no dev dependencies here');
  }, 240_000);
});
