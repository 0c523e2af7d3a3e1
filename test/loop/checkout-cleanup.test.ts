/**
 * Issue 15, point 12: an agent that needs no checkout (a model API) and fails
 * at once, while the checkout is still being made in the background for the
 * stages after it. The run's end must wait for that work before removing the
 * checkout: no ENOTEMPTY out of the driver, no worktree left behind. The race
 * is made certain, not likely: `worktree add` is held until the ledger has
 * ended the run, whatever the machine's speed.
 */
import { existsSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import type { LoopDeps } from '../../src/loop/deps.js';
import { withMethod } from '../helpers/with-method.js';
import { inProcess, makeReviewRepo, type ReviewRepo, review, testEnv } from './helpers.js';

const repos: ReviewRepo[] = [];
afterAll(async () => {
  for (const r of repos) await r.cleanup();
});

describe('the checkout readied in the background (point 12)', () => {
  it('an openai reviewer without its key fails the run cleanly, and its checkout is removed', async () => {
    const r = await makeReviewRepo({
      config: (agent) => ({
        criteria: 'REVIEW.md',
        // A fixer needs the checkout after the review, so it is readied beside the call
        // (with no fixer and no checks, an API review makes no checkout at all).
        fixer: agent,
        reviewers: [
          {
            name: 'std',
            adapter: 'openai',
            baseURL: 'http://127.0.0.1:9/v1',
            model: 'm1',
            apiKeyEnv: 'NO_SUCH_KEY',
          },
        ],
        // A checkout of the run's own, removed at its end (a pool lane stays: test/pool).
        pool: { size: 0 },
      }),
    });
    repos.push(r);
    let added: string | null = null;
    let addSettled: Promise<void> = Promise.resolve();
    let ended!: () => void;
    const runEnded = new Promise<void>((done) => {
      ended = done;
    });
    const tweak = (d: LoopDeps): LoopDeps => ({
      ...d,
      git: {
        ...d.git,
        addWorktree: (repo, dir, sha) => {
          added = dir;
          addSettled = runEnded.then(() => d.git.addWorktree(repo, dir, sha));
          return addSettled;
        },
      },
      store: withMethod(d.store, 'finishRun', (finish) => async (...a) => {
        const row = await finish(...a);
        ended();
        return row;
      }),
    });
    const p = await inProcess(r.dir, { env: testEnv({ NO_SUCH_KEY: undefined }), tweak });
    try {
      const res = await review(p, r.dir);
      expect(res.run).toMatchObject({ status: 'failed', reason: 'missing_context' });
      expect(res.run.detail).toMatch(/NO_SUCH_KEY is not set/);
      expect(added, 'the checkout was being readied beside the call').not.toBeNull();
      // Whatever the order, judge once the add has finished: a removal that did not wait for it
      // leaves the checkout it then made.
      await addSettled.catch(() => undefined);
      expect(existsSync(added ?? ''), 'the checkout is gone').toBe(false);
      expect(r.repo.git(['worktree', 'list', '--porcelain'])).not.toContain(added ?? '');
    } finally {
      await p.close();
    }
  });

  it('a review no later stage reads (API reviewers, no fixer, no checks) makes no checkout at all', async () => {
    const r = await makeReviewRepo({
      config: {
        criteria: 'REVIEW.md',
        reviewers: [{ name: 'std', adapter: 'scripted', script: 'review/script.json' }],
      },
      files: {
        'review/script.json': JSON.stringify({ std: { '*': { reply: { verdict: 'pass', findings: [] } } } }),
      },
    });
    repos.push(r);
    const touched: string[] = [];
    const noted =
      <A extends unknown[], R>(what: string, fn: (...a: A) => R) =>
      (...a: A): R => {
        touched.push(what);
        return fn(...a);
      };
    const tweak = (d: LoopDeps): LoopDeps => ({
      ...d,
      git: {
        ...d.git,
        addWorktree: noted('add', d.git.addWorktree),
        resetWorktree: noted('reset', d.git.resetWorktree),
        cleanWorktree: noted('clean', d.git.cleanWorktree),
      },
    });
    const p = await inProcess(r.dir, { env: testEnv(), tweak });
    try {
      const res = await review(p, r.dir);
      expect(res.run).toMatchObject({ status: 'completed', outcome: 'clear' });
      expect(touched).toEqual([]);
    } finally {
      await p.close();
    }
  });
});
