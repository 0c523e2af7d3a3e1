/**
 * Issue 15, point 12: a path given to `--out` / `--svg` that cannot hold a
 * file (a directory, a path under a regular file, a place the kernel refuses
 * to create) is one line naming the path and exit 2, never a stack trace,
 * never a spin. Through the real CLI in a real repository.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  baseConfig,
  CLI,
  type CliResult,
  ensureBuilt,
  makeReviewRepo,
  pass,
  type ReviewRepo,
  runCli,
  testEnv,
} from '../loop/helpers.js';

let r: ReviewRepo;
let runId: string;
const scratch = realpathSync(mkdtempSync(join(tmpdir(), 'revloop-bad-paths-')));
const aFile = join(scratch, 'plain.txt');
const aDir = join(scratch, 'a-dir');

beforeAll(async () => {
  ensureBuilt();
  writeFileSync(aFile, 'a regular file\n');
  writeFileSync(join(scratch, 'keep'), '');
  rmSync(aDir, { recursive: true, force: true });
  await import('node:fs').then((fs) => fs.mkdirSync(aDir));
  r = await makeReviewRepo({ config: (a) => baseConfig(a) });
  r.plan({ reviewer: [{ reply: pass }] });
  const res = await runCli(['review', '--head', 'topic', '--json'], { cwd: r.dir });
  expect(res.code, res.stderr).toBe(0);
  runId = String(res.json?.runId);
}, 120_000);
afterAll(async () => {
  await r?.cleanup();
  rmSync(scratch, { recursive: true, force: true });
});

/** Like runCli, but killed with KILL at the (generous) limit: a CLI spinning in a sync loop ignores TERM. */
const cli = (args: string[]): Promise<CliResult> =>
  new Promise((done) => {
    execFile(
      process.execPath,
      [CLI, ...args],
      { cwd: r.dir, env: testEnv(), timeout: 60_000, killSignal: 'SIGKILL' },
      (err, stdout, stderr) =>
        done({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr, json: null }),
    );
  });

function expectBadPath(res: CliResult, path: string) {
  expect(res.code, res.stderr).toBe(2);
  const lines = res.stderr.trimEnd().split('\n');
  expect(lines, res.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^revloop: /);
  expect(lines[0]).toContain(path);
  expect(lines[0]).not.toMatch(/internal error|\n\s+at /);
}

describe('a bad output path is one line and exit 2 (point 12)', () => {
  it('export --out naming a directory', async () => {
    const res = await cli(['export', runId, '--out', aDir]);
    expectBadPath(res, aDir);
    expect(res.stderr).toMatch(/is a directory/);
    // Nothing left beside it: no temp file in the parent.
    expect(readdirSync(scratch).sort()).toEqual(['a-dir', 'keep', 'plain.txt']);
  });

  it('export --out under a regular file', async () => {
    const out = join(aFile, 'rec.md');
    const res = await cli(['export', runId, '--out', out]);
    expectBadPath(res, out);
    expect(res.stderr).toContain(`${aFile} is not a directory`);
  });

  it('export --out where the kernel refuses to create a directory (/proc) returns', async () => {
    const res = await cli(['export', runId, '--out', '/proc/revloop-x/y.md']);
    expectBadPath(res, '/proc/revloop-x/y.md');
    expect(res.stderr).toMatch(/cannot create directory \/proc\/revloop-x/);
  });

  it('review --out under a regular file is refused before the loop runs', async () => {
    const out = join(aFile, 'rec.json');
    r.repo.git(['commit', '--allow-empty', '-q', '-m', 'another revision']);
    const before = r.counts().reviewer ?? 0;
    const res = await cli(['review', '--head', 'topic', '--out', out]);
    expectBadPath(res, out);
    expect(r.counts().reviewer ?? 0).toBe(before);
  });

  it('keygen --out under a regular file', async () => {
    const res = await cli(['keygen', '--out', join(aFile, 'k')]);
    expectBadPath(res, join(aFile, 'k.key'));
  });

  it('sim --svg naming a directory', async () => {
    const res = await cli(['sim', '--trials', '5', '--svg', aDir]);
    expectBadPath(res, aDir);
    expect(existsSync(join(aDir, 'x'))).toBe(false);
  });
});
