/**
 * Read-only commands in a repository nobody has reviewed yet (a fresh clone):
 * they answer from an empty ledger and write nothing, so `.revloop/` does not
 * appear in the user's tree; an empty ledger file (nothing ever written, no
 * log beside it) reads as empty, not as one that "needs an upgrade". Real CLI
 * processes in a real repository; the next `review` then makes the ledger.
 */
import { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import {
  baseConfig,
  ensureBuilt,
  makeReviewRepo,
  pass,
  reposRemovedAfterAll,
  runCli,
} from '../loop/helpers.js';

const repos = reposRemovedAfterAll();
beforeAll(() => ensureBuilt(), 120_000);

async function freshRepo() {
  const r = await makeReviewRepo({ config: (a) => baseConfig(a) });
  repos.push(r);
  return r;
}

it('status, export and replay with no ledger: an empty answer, the usual exit code, no .revloop/', async () => {
  const r = await freshRepo();
  const status = await runCli(['status'], { cwd: r.dir });
  expect(status.code, status.stderr).toBe(0);
  expect(status.stdout).toContain('no runs yet');
  const json = await runCli(['status', '--json'], { cwd: r.dir });
  expect(JSON.parse(json.stdout)).toEqual({ runs: [] });
  for (const args of [
    ['export', 'run-1'],
    ['replay', 'run-1'],
  ]) {
    const res = await runCli(args, { cwd: r.dir });
    expect(res.code, args.join(' ')).toBe(2);
    expect(res.stderr.trim().split('\n')).toEqual(['revloop: no run matches "run-1" in the ledger']);
  }
  expect(existsSync(join(r.dir, '.revloop'))).toBe(false);
});

it('an empty ledger file reads as an empty ledger and stays empty; review then writes it', async () => {
  const r = await freshRepo();
  const ledger = join(r.dir, '.revloop', 'ledger.db');
  mkdirSync(join(r.dir, '.revloop'));
  writeFileSync(ledger, '');
  const status = await runCli(['status'], { cwd: r.dir });
  expect(status.code, status.stderr).toBe(0);
  expect(status.stdout).toContain('no runs yet');
  expect(statSync(ledger).size).toBe(0);
  r.plan({ reviewer: [{ reply: pass }] });
  const review = await runCli(['review', '--head', 'topic'], { cwd: r.dir });
  expect(review.code, review.stderr).toBe(0);
  const after = await runCli(['status', '--json'], { cwd: r.dir });
  expect(JSON.parse(after.stdout).runs).toHaveLength(1);
}, 60_000);
