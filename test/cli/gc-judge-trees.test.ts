/**
 * `gc` removes the judge trees (read-only copies of a config commit, under the
 * user's cache) that no live run reads its config from, and the half-built
 * copies of builders that died; a live run's tree stays. They were never
 * removed: one full tree per base commit reviewed, for good.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  baseConfig,
  ensureBuilt,
  inProcess,
  makeReviewRepo,
  reposRemovedAfterAll,
  runCli,
  testEnv,
} from '../loop/helpers.js';

const repos = reposRemovedAfterAll();
const cache = mkdtempSync(join(tmpdir(), 'revloop-gc-judge-'));
beforeAll(() => ensureBuilt(), 120_000);
afterAll(() => rmSync(cache, { recursive: true, force: true }));

const PASS = "process.stdout.write(JSON.stringify({ verdict: 'pass', findings: [] }));\n";

interface GcJson {
  removed: string[];
  held: string[];
  imports: string[];
}

describe('gc and judge trees', () => {
  it("removes trees no live run reads, and dead builders' copies; keeps a queued run's", async () => {
    const r = await makeReviewRepo({
      config: () => baseConfig({ command: ['node', 'tools/review.mjs'] }),
      files: { 'tools/review.mjs': PASS },
    });
    repos.push(r);
    const env = testEnv({ XDG_CACHE_HOME: cache });
    const run = await runCli(['review', '--base', 'main', '--json'], { cwd: r.dir, env });
    expect(run.code, run.stderr).toBe(0);
    const [repoDir] = readdirSync(join(cache, 'revloop', 'judge'));
    const judges = join(cache, 'revloop', 'judge', repoDir ?? '');
    expect(readdirSync(judges)).toEqual([r.base]);
    const deadBuilder = join(judges, `.${r.base}.2147483646.abcdef012345`);
    mkdirSync(deadBuilder);

    const gc = await runCli(['gc', '--json'], { cwd: r.dir, env });
    expect(gc.code, gc.stderr).toBe(0);
    const out = JSON.parse(gc.stdout) as GcJson;
    expect(out.removed).toEqual(expect.arrayContaining([join(judges, r.base), deadBuilder]));
    expect(readdirSync(judges)).toEqual([]);

    // A run admitted and not yet driven reads its config from the same base: its tree stays.
    r.repo.write('src/other.js', 'export const other = 1;\n');
    r.repo.commit('another change');
    const q = await runCli(['enqueue', '--base', 'main', '--json'], { cwd: r.dir, env });
    expect(q.code, q.stderr).toBe(0);
    mkdirSync(join(judges, r.base));
    const again = JSON.parse((await runCli(['gc', '--json'], { cwd: r.dir, env })).stdout) as GcJson;
    expect(again.held).toContain(join(judges, r.base));
    expect(existsSync(join(judges, r.base))).toBe(true);
  });

  it("deletes the refs fixes of ended runs were imported into, and keeps a live run's", async () => {
    const r = await makeReviewRepo({
      config: () => baseConfig({ command: ['node', 'tools/review.mjs'] }),
      files: { 'tools/review.mjs': PASS },
    });
    repos.push(r);
    const env = testEnv({ XDG_CACHE_HOME: cache });
    expect((await runCli(['review', '--base', 'main', '--json'], { cwd: r.dir, env })).code).toBe(0);
    r.repo.write('src/other.js', 'export const other = 1;\n');
    r.repo.commit('another change');
    expect((await runCli(['enqueue', '--base', 'main', '--json'], { cwd: r.dir, env })).code).toBe(0);
    const p = await inProcess(r.dir);
    const queued = (await p.store.listRuns({ status: ['queued'] }))[0]?.id ?? '';
    const completed = (await p.store.listRuns({ status: ['completed'] }))[0]?.id ?? '';
    await p.close();
    expect([queued, completed]).not.toContain('');
    const ended = `refs/revloop/imports/${completed}/${r.head}`;
    const live = `refs/revloop/imports/${queued}/${r.head}`;
    r.repo.git(['update-ref', ended, r.head]);
    r.repo.git(['update-ref', live, r.head]);
    const gc = await runCli(['gc', '--json'], { cwd: r.dir, env });
    expect(gc.code, gc.stderr).toBe(0);
    expect((JSON.parse(gc.stdout) as GcJson).imports).toEqual([ended]);
    expect(r.repo.git(['for-each-ref', '--format=%(refname)', 'refs/revloop/imports/']).trim()).toBe(live);
  });
});
