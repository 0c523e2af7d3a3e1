/**
 * Agents that die or hang mid-call (project issue 5, requirement 4): a
 * reviewer killed mid-output and a fixer killed mid-edit leave no verdict and
 * no partial commit, the fixer's worktree is reset to the last committed
 * revision, and the attempt is retried (timeout: the controller killed it at
 * its deadline) or fails the run (death by a signal: `failed`) as its class says.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { type LoopFixture, makeLoopFixture } from '../crash/loop-fixture.js';
import { CALC_LINES, git } from '../crash/template.mjs';

let fx: LoopFixture | undefined;
afterEach(async () => {
  await fx?.cleanup();
  fx = undefined;
});

/** Shas of every commit in the object store, dangling ones included. */
function allCommits(dir: string): string[] {
  return git(dir, ['cat-file', '--batch-all-objects', '--batch-check=%(objectname) %(objecttype)'])
    .split('\n')
    .filter((l) => l.endsWith(' commit'))
    .map((l) => l.split(' ')[0] ?? '');
}

/** Watches the run's worktree at the `before:finish` boundary (after any reset, before its removal). */
function worktreeWatcher(f: LoopFixture) {
  const seen: { file: string | null; head: string | null } = { file: null, head: null };
  const hook = (name: string) => {
    if (name !== 'before:finish') return;
    const wts = git(f.dir, ['worktree', 'list', '--porcelain'])
      .split('\n')
      .filter((l) => l.startsWith('worktree ') && l !== `worktree ${f.dir}`)
      .map((l) => l.slice('worktree '.length));
    const wt = wts[0];
    if (!wt || !existsSync(wt)) return;
    seen.file = readFileSync(join(wt, 'src/calc.js'), 'utf8');
    seen.head = git(wt, ['rev-parse', 'HEAD']);
  };
  return { seen, hook };
}

test('a reviewer killed by a signal mid-output fails the run: no verdict, no finding, no retry', async () => {
  fx = await makeLoopFixture({ agentEnv: { CRASH_MODE_REVIEWER: 'die-mid-output' } });
  const { store, deps } = await fx.open();
  const res = await fx.review(deps);
  expect(res.run.status).toBe('failed');
  expect(res.run.reason).toBe('reviewer_failed');
  expect(res.run.outcome).toBeNull();
  const attempts = await store.listAttempts(res.run.id);
  // Both reviewers of the round start side by side (issue 17) and both die: one attempt each, none retried.
  expect(attempts.map((a) => [a.stage, a.reviewer, a.class]).sort()).toEqual([
    ['review', 'alpha', 'failed'],
    ['review', 'beta', 'failed'],
  ]);
  expect(res.run.detail).toContain('reviewer alpha');
  expect(await store.listVerdicts(res.run.id)).toEqual([]);
  expect(await store.listFindings(res.run.id)).toEqual([]);
  expect(res.recordPath).toBeNull();
});

test('a reviewer killed at its deadline mid-output is retried under the same call key', async () => {
  fx = await makeLoopFixture({ callSeconds: 1, agentEnv: { CRASH_MODE_REVIEWER: 'hang-once' } });
  const { store, deps } = await fx.open();
  const res = await fx.review(deps);
  expect(res.run.status).toBe('completed');
  expect(res.run.outcome).toBe('clear');
  const attempts = await store.listAttempts(res.run.id);
  const first = attempts.find((a) => a.class === 'timeout');
  expect(first).toBeDefined();
  const same = attempts.filter((a) => a.callKey === first?.callKey);
  expect(same.map((a) => [a.attemptNo, a.class])).toEqual([
    [1, 'timeout'],
    [2, 'ok'],
  ]);
  expect((await store.listVerdicts(res.run.id)).filter((v) => v.callKey === first?.callKey)).toHaveLength(1);
  expect(fx.invocations().filter((i) => i.callKey === first?.callKey)).toHaveLength(2);
});

test('a fixer killed by a signal mid-edit: worktree reset, no partial commit, the run fails', async () => {
  fx = await makeLoopFixture({ agentEnv: { CRASH_MODE_FIXER: 'die-mid-edit' } });
  const commitsBefore = allCommits(fx.dir).sort();
  const watch = worktreeWatcher(fx);
  const { store, deps } = await fx.open({ crashPoint: watch.hook });
  const res = await fx.review(deps);
  expect(res.run.status).toBe('failed');
  expect(res.run.reason).toBe('fixer_failed');
  expect(res.run.head).toBe(fx.head);
  // The half-written file the fixer left was thrown away: the checkout is the committed revision again.
  expect(watch.seen.head).toBe(fx.head);
  expect(watch.seen.file?.trimEnd()).toBe(git(fx.dir, ['show', `${fx.head}:src/calc.js`]));
  expect(allCommits(fx.dir).sort()).toEqual(commitsBefore);
  expect(() => git(fx?.dir ?? '', ['rev-parse', '--verify', `refs/revloop/runs/${res.run.id}`])).toThrow();
  const fix = (await store.listAttempts(res.run.id)).filter((a) => a.stage === 'fix');
  expect(fix.map((a) => a.class)).toEqual(['failed']);
  expect((await store.listVerdicts(res.run.id)).some((v) => v.stage === 'fix')).toBe(false);
  expect((await store.listStages(res.run.id)).some((s) => s.stage === 'fix')).toBe(false);
});

test('a fixer killed at its deadline mid-edit is retried on a reset checkout and commits a whole file', async () => {
  fx = await makeLoopFixture({ callSeconds: 1, agentEnv: { CRASH_MODE_FIXER: 'hang-once' } });
  const { store, deps } = await fx.open();
  const res = await fx.review(deps);
  expect(res.run.status).toBe('completed');
  expect(res.run.outcome).toBe('clear');
  const fix = (await store.listAttempts(res.run.id)).filter((a) => a.stage === 'fix');
  expect(fix.map((a) => [a.attemptNo, a.class])).toEqual([
    [1, 'timeout'],
    [2, 'ok'],
  ]);
  // Had the retry seen the first attempt's half-written file, it would have committed it.
  const fixed = git(fx.dir, ['show', `${res.run.head}:src/calc.js`]);
  expect(fixed.split('\n')).toHaveLength(CALC_LINES - 1);
  expect(fixed).not.toContain('BUG-A');
  expect(git(fx.dir, ['rev-list', '--count', `${fx.head}..${res.run.head}`])).toBe('1');
});
