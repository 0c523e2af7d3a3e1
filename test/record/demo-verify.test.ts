/**
 * Invariant 14 end to end: the record a real run writes (the offline demo:
 * scripted reviewers, a fix commit) verifies on exactly its final head and is
 * refused anywhere else.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_GIT_ENV } from '../helpers/git-repo.js';
import { cli, ensureBuilt } from './setup.js';

let dir: string;
let demo: { run: { finalHead: string; head: string; status: string; outcome: string }; record?: string };
let record: string;
const git = (...args: string[]) =>
  execFileSync('git', ['-c', 'core.hooksPath=/dev/null', ...args], {
    cwd: join(dir, 'demo'),
    env: TEST_GIT_ENV,
    encoding: 'utf8',
  }).trim();

beforeAll(() => {
  ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'revloop-demo-verify-'));
  const r = cli(['demo', '--dir', join(dir, 'demo'), '--json'], dir);
  expect(r.code).toBe(0);
  demo = JSON.parse(r.stdout);
  const found = /"record":\s*"([^"]+)"/.exec(r.stdout);
  if (!found?.[1]) throw new Error('the demo wrote no record');
  record = found[1];
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a record written by a real run', () => {
  it('verifies on its final head only', () => {
    expect(demo.run).toMatchObject({ status: 'completed', outcome: 'clear' });
    const repo = join(dir, 'demo');
    git('checkout', '-q', '--detach', demo.run.head);
    expect(cli(['verify', record, '--repo', repo], repo).code).toBe(
      demo.run.head === demo.run.finalHead ? 0 : 3,
    );
    git('checkout', '-q', '--detach', demo.run.finalHead);
    const ok = cli(['verify', record, '--repo', repo, '--json'], repo);
    expect(JSON.parse(ok.stdout)).toMatchObject({ ok: true, head: demo.run.finalHead, outcome: 'clear' });
    expect(ok.code).toBe(0);
  });

  it('is refused once the head moves', () => {
    const repo = join(dir, 'demo');
    git('checkout', '-q', '--detach', demo.run.finalHead);
    git('commit', '-q', '--allow-empty', '-m', 'after the review');
    const r = cli(['verify', record, '--repo', repo, '--json'], repo);
    expect(JSON.parse(r.stdout).code).toBe('subject_mismatch');
    expect(r.code).toBe(3);
  });
});
