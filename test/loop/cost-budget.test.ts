/**
 * Invariant 12, the money (issue 15, point 3): a run whose recorded spend
 * exceeds its frozen cost budget never ends clear, whatever the order of its
 * calls, and every cent spent is on the ledger, also on an aborted run.
 * Real git, real subprocess reviewers replying with a cost, the CLI as a real
 * process, the SQLite ledger; every run is replayed.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import {
  baseConfig,
  ensureBuilt,
  findings,
  makeReviewRepo,
  paid,
  raceFinding,
  replayedReportIn,
  reposRemovedAfterAll,
  runCli,
} from './helpers.js';

const repos = reposRemovedAfterAll();
beforeAll(() => ensureBuilt(), 120_000);

const budgets = { rounds: 3, wallSeconds: 600, costUsd: 5 };

describe('invariant 12: spend over the frozen cost budget', () => {
  it('one reviewer whose reply costs $6 against costUsd 5: completed / findings / budget, exit 1, never clear', async () => {
    const r = await makeReviewRepo({ config: (a) => baseConfig(a, { budgets }) });
    repos.push(r);
    r.plan({ reviewer: [paid(6)] });
    const res = await runCli(['review', '--head', 'topic', '--json'], { cwd: r.dir });
    expect(res.code, res.stderr).toBe(1);
    expect(res.json).toMatchObject({
      status: 'completed',
      outcome: 'findings',
      stopReason: 'budget',
      costUsd: 6,
    });
    const report = await replayedReportIn(r, res.json?.runId as string);
    expect(report.run.costUsd).toBeCloseTo(6);
    const esc = await runCli(['export', report.run.id, '--format', 'escalation'], { cwd: r.dir });
    expect(esc.stdout).toMatch(/budget/);
    expect(esc.stdout).not.toMatch(/no evidence of progress/);
  });

  it('the same spend with a second reviewer after it aborts mid review, and the ledger keeps the $6', async () => {
    const r = await makeReviewRepo({
      config: (a) =>
        baseConfig(a, {
          budgets,
          reviewers: [
            { name: 'costly', ...a },
            { name: 'second', ...a },
          ],
          // One call at a time: the second reviewer's start is checked against the first one's spend.
          review: { concurrency: 1 },
        }),
    });
    repos.push(r);
    r.plan({ 'reviewer:costly': [paid(6)], 'reviewer:second': [paid(0.01)] });
    const res = await runCli(['review', '--head', 'topic', '--json'], { cwd: r.dir });
    expect(res.code, res.stderr).toBe(3);
    expect(res.json).toMatchObject({ status: 'aborted', outcome: null, reason: 'budget_cost' });
    expect(r.counts()['reviewer:second']).toBeUndefined();
    // Every cent spent is recorded: admission's cost window and every report read this.
    const report = await replayedReportIn(r, res.json?.runId as string);
    expect(report.run.costUsd).toBeCloseTo(6);
    const status = await runCli(['status', '--json'], { cwd: r.dir });
    expect((status.json as { runs: { costUsd: number }[] }).runs[0]?.costUsd).toBeCloseTo(6);
  });

  it('in the other order (the costly reviewer last) the run is not clear either', async () => {
    const r = await makeReviewRepo({
      config: (a) =>
        baseConfig(a, {
          budgets,
          reviewers: [
            { name: 'cheap', ...a },
            { name: 'costly', ...a },
          ],
        }),
    });
    repos.push(r);
    r.plan({ 'reviewer:cheap': [paid(0.5)], 'reviewer:costly': [paid(6)] });
    const res = await runCli(['review', '--head', 'topic', '--json'], { cwd: r.dir });
    expect(res.code, res.stderr).toBe(1);
    expect(res.json).toMatchObject({ outcome: 'findings', stopReason: 'budget', costUsd: 6.5 });
    await replayedReportIn(r, res.json?.runId as string);
  });

  it('over the budget after a complete review, no refuter or fixer is paid for: findings / budget', async () => {
    const r = await makeReviewRepo({ config: (a) => baseConfig(a, { budgets, refuter: a, fixer: a }) });
    repos.push(r);
    r.plan({
      reviewer: [{ reply: { ...findings(raceFinding()), usage: { costUsd: 6 } } }],
      refuter: [{ reply: { decision: 'refuted', reason: 'would clear it' } }],
      fixer: [{ reply: { disputed: [] } }],
    });
    const res = await runCli(['review', '--head', 'topic', '--json'], { cwd: r.dir });
    expect(res.code, res.stderr).toBe(1);
    expect(res.json).toMatchObject({ status: 'completed', outcome: 'findings', stopReason: 'budget' });
    expect(r.counts().refuter).toBeUndefined();
    expect(r.counts().fixer).toBeUndefined();
    await replayedReportIn(r, res.json?.runId as string);
  });
});
