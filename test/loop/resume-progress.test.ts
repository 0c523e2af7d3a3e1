/**
 * What a resumed run reports as done: the review stage says how many calls it
 * will make, and a call whose verdict the dead owner already recorded says so
 * (`call_done`, class `recorded`) without calling its agent again, so the
 * progress line of the resumed run counts it (cli/progress.ts).
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { CliIO } from '../../src/cli/io.js';
import { progressPrinter } from '../../src/cli/progress.js';
import type { LoopEvent } from '../../src/loop/deps.js';
import { resumeRun } from '../../src/loop/operations.js';
import {
  baseConfig,
  dyingAt,
  inProcess,
  makeReviewRepo,
  pass,
  type ReviewRepo,
  review,
  testEnv,
} from './helpers.js';

const repos: ReviewRepo[] = [];
afterAll(async () => {
  for (const r of repos) await r.cleanup();
});

describe('a resumed review counts the verdicts it already had', () => {
  it('sends calls and a recorded call_done per verdict in the ledger, and calls no agent again', async () => {
    const r = await makeReviewRepo({
      config: (a) =>
        baseConfig(a, {
          reviewers: [
            { name: 'correctness', ...a },
            { name: 'security', ...a },
          ],
        }),
    });
    repos.push(r);
    r.plan({ reviewer: [{ reply: pass }, { reply: pass }] });
    const env = testEnv();
    const first = await inProcess(r.dir, { env, tweak: dyingAt('before-complete:review', 200) });
    await expect(review(first, r.dir)).rejects.toThrow('controller died');
    const [stuck] = await first.store.listRuns();
    await first.close();
    if (!stuck) throw new Error('no run');
    const calledBefore = r.counts();
    await new Promise((res) => setTimeout(res, 300)); // the dead owner's lease runs out

    const events: LoopEvent[] = [];
    const second = await inProcess(r.dir, {
      env,
      tweak: (d) => ({ ...d, onEvent: (e) => events.push(e) }),
    });
    try {
      const res = await resumeRun(second.deps, stuck.id);
      expect(res.run).toMatchObject({ status: 'completed', outcome: 'clear' });
    } finally {
      await second.close();
    }
    expect(r.counts(), 'no agent was called again').toEqual(calledBefore);
    const review1 = events.slice(events.findIndex((e) => e.kind === 'stage' && e.stage === 'review'));
    expect(review1.find((e) => e.kind === 'calls')).toMatchObject({ stage: 'review', total: 2 });
    const done = review1.filter((e) => e.kind === 'call_done');
    expect(done.map((e) => e.kind === 'call_done' && [e.name, e.class, e.costUsd])).toEqual([
      ['correctness', 'recorded', 0],
      ['security', 'recorded', 0],
    ]);

    // What the resumed run's live line says once the stage has its verdicts.
    let drawn = '';
    const io = { env: {}, progress: (t: string) => (drawn = t) } as unknown as CliIO;
    const p = progressPrinter(io, 'live', { now: () => 0, every: () => () => undefined });
    for (const e of events.slice(0, events.indexOf(done[1] as LoopEvent) + 1)) p.onEvent?.(e);
    expect(drawn).toContain('round 1 · review · 2 of 2 calls done');
    p.done();
  });
});
