/**
 * The bounded loop (issue 3) with real git, real subprocess agents and a
 * real SQLite ledger: refuter, fixer and checks; progress evidence and the
 * stop rule with its escalation report (invariant 8); the scope lock across
 * rounds and across runs (invariant 11); the budgets (invariant 12); and
 * settlements by a named person.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { DecideResult } from '../../src/core/stage-results.js';
import {
  baseConfig,
  ensureBuilt,
  FIXED_FILE,
  findings,
  HEAD_FILE,
  inProcess,
  LOCK_CHECK,
  makeReviewRepo,
  pass,
  type ReviewRepoOptions,
  raceFinding,
  reposRemovedAfterAll,
  review,
  runCli,
} from './helpers.js';

const repos = reposRemovedAfterAll();
beforeAll(() => ensureBuilt(), 600_000);

async function setup(
  extra: (a: { command: string[] }) => Record<string, unknown>,
  o: Partial<ReviewRepoOptions> = {},
) {
  const r = await makeReviewRepo({ config: (a) => baseConfig(a, extra(a)), ...o });
  repos.push(r);
  const p = await inProcess(r.dir);
  return { r, p };
}

const decideOf = (stages: { round: number; stage: string; result: unknown }[], round: number) =>
  stages.find((s) => s.round === round && s.stage === 'decide')?.result as DecideResult;

describe('refuter, fixer and checks', () => {
  it('a blocker upheld by the refuter, fixed with evidence, ends clear on the fix commit', async () => {
    const { r, p } = await setup(
      (a) => ({
        refuter: a,
        fixer: a,
        checks: [{ name: 'serialised', run: ['node', 'checks/lock.mjs'] }],
      }),
      { files: { 'checks/lock.mjs': LOCK_CHECK } },
    );
    r.plan({
      reviewer: [{ round: 1, reply: findings(raceFinding()) }, { reply: pass }],
      refuter: [{ reply: { decision: 'upheld', reason: 'the await splits the read from the write' } }],
      fixer: [{ write: { 'src/calc.js': FIXED_FILE }, reply: { disputed: [] } }],
    });
    try {
      const res = await review(p, r.dir);
      const { run, stages, findings: rows } = res.report;
      expect(run).toMatchObject({
        status: 'completed',
        outcome: 'clear',
        stopReason: 'clear',
        roundsDone: 2,
      });
      expect(run.head).not.toBe(r.head);
      expect(r.repo.git(['rev-parse', `refs/revloop/runs/${run.id}`])).toBe(run.head);
      // The user's branch did not move: fixes land only with --apply.
      expect(r.repo.git(['rev-parse', 'topic'])).toBe(r.head);
      expect(rows[0]?.refutation).toMatchObject({ decision: 'upheld', by: 'refuter' });
      const checks = (round: number) =>
        (
          stages.find((s) => s.round === round && s.stage === 'checks')?.result as
            | { results: { passed: boolean }[] }
            | undefined
        )?.results[0]?.passed;
      expect([checks(0), checks(1)]).toEqual([false, true]);
      const d2 = decideOf(stages, 2);
      expect(d2.evidence).toMatchObject({ progress: true });
      expect(d2.evidence?.fixed).toEqual([rows[0]?.id]);
      expect(d2.evidence?.checksNowPassing).toEqual(['serialised']);
    } finally {
      await p.close();
    }
  });

  it('a refuted blocker does not block and costs no fix round', async () => {
    const { r, p } = await setup((a) => ({ refuter: a, fixer: a }));
    r.plan({
      reviewer: [{ reply: findings(raceFinding()) }],
      refuter: [{ reply: { decision: 'refuted', reason: 'deposit is only called from one queue' } }],
      fixer: [{ exit: 9 }],
    });
    try {
      const { report } = await review(p, r.dir);
      expect(report.run).toMatchObject({ status: 'completed', outcome: 'clear', roundsDone: 1 });
      expect(report.findings[0]?.refutation).toMatchObject({
        decision: 'refuted',
        reason: expect.stringMatching(/queue/),
      });
      expect(r.counts().fixer).toBeUndefined();
    } finally {
      await p.close();
    }
  });
});

describe('stop rule (invariant 8)', () => {
  it('two rounds without progress stop with no_progress and an escalation report', async () => {
    const { r, p } = await setup((a) => ({ fixer: a, budgets: { rounds: 6, wallSeconds: 600, costUsd: 5 } }));
    // The fixer only reformats a line the finding does not cite; the reviewer raises the same blocker again.
    r.plan({
      reviewer: [{ reply: findings(raceFinding()) }],
      fixer: [
        {
          round: 1,
          write: { 'src/calc.js': HEAD_FILE.replace('return a + b;', 'return a + b; // sum') },
          reply: { disputed: [] },
        },
        {
          round: 2,
          write: { 'src/calc.js': HEAD_FILE.replace('return a - b;', 'return a - b; // diff') },
          reply: { disputed: [] },
        },
        { reply: { disputed: [] } },
      ],
    });
    try {
      const { report } = await review(p, r.dir);
      expect(report.run).toMatchObject({
        status: 'completed',
        outcome: 'findings',
        stopReason: 'no_progress',
      });
      expect(report.run.roundsDone).toBe(3);
      expect(decideOf(report.stages, 2).progress).toEqual([true, false]);
      expect(decideOf(report.stages, 3).progress).toEqual([true, false, false]);
      const base = join(r.dir, '.revloop', 'reports', `${report.run.id}-escalation`);
      expect(existsSync(`${base}.md`)).toBe(true);
      const esc = JSON.parse(readFileSync(`${base}.json`, 'utf8')) as {
        blockingCounts: number[];
        stopReason: string;
      };
      expect(esc).toMatchObject({ stopReason: 'no_progress', blockingCounts: [1, 1, 1] });
    } finally {
      await p.close();
    }
  });
});

describe('scope lock (invariant 11)', () => {
  it('across rounds: a reviewer that passed cannot block on a line the fix did not touch', async () => {
    const { r, p } = await setup((a) => ({
      reviewers: [
        { name: 'correctness', ...a },
        { name: 'style', ...a },
      ],
      fixer: a,
    }));
    const oldLine = raceFinding({
      line: 2,
      endLine: 2,
      claim: 'add does not check its inputs',
      failureScenario: 'add(undefined, 1) returns NaN and the total becomes NaN',
    });
    r.plan({
      'reviewer:correctness': [{ round: 1, reply: findings(raceFinding()) }, { reply: pass }],
      'reviewer:style': [{ round: 1, reply: pass }, { reply: findings(oldLine) }],
      fixer: [{ write: { 'src/calc.js': FIXED_FILE }, reply: { disputed: [] } }],
    });
    try {
      const { report } = await review(p, r.dir);
      expect(report.run).toMatchObject({ status: 'completed', outcome: 'clear', roundsDone: 2 });
      const late = report.findings.find((f) => f.round === 2);
      expect(late).toMatchObject({
        severity: 'MINOR',
        gate: { kind: 'demoted', rule: 'scope_lock', passedAt: r.head },
      });
    } finally {
      await p.close();
    }
  });

  it('across runs of the same change (--change): a re-raise on an unchanged line must say what was missed', async () => {
    const { r, p } = await setup(() => ({}));
    const oldLine = raceFinding({
      line: 2,
      endLine: 2,
      claim: 'add does not check its inputs',
      failureScenario: 'add(undefined, 1) returns NaN',
    });
    r.plan({
      reviewer: [
        { call: 1, reply: pass },
        { call: 2, reply: findings(oldLine) },
        {
          reply: findings(oldLine, {
            ...oldLine,
            claim: 'add overflows',
            missedBecause: 'the first pass did not run the large-number case',
          }),
        },
      ],
    });
    try {
      const first = await review(p, r.dir, { change: 'PR-7' });
      expect(first.report.run.outcome).toBe('clear');
      // A new push edits another line; the same reviewer now blocks on the unchanged line 2.
      r.repo.write('src/calc.js', HEAD_FILE.replace('return a - b;', 'return b - a;'));
      r.repo.commit('push 2');
      const second = await review(p, r.dir, { change: 'PR-7' });
      expect(second.admitted).toBe('created');
      expect(second.report.run).toMatchObject({ status: 'completed', outcome: 'clear' });
      expect(second.report.findings[0]).toMatchObject({
        severity: 'MINOR',
        gate: { rule: 'scope_lock', passedAt: r.head },
      });
      // Same again, but one re-raise says what the earlier pass missed: it blocks.
      r.repo.write('src/calc.js', HEAD_FILE.replace('return a - b;', 'return -(a - b) * -1;'));
      r.repo.commit('push 3');
      const third = await review(p, r.dir, { change: 'PR-7' });
      expect(third.report.run).toMatchObject({ status: 'completed', outcome: 'findings' });
      expect(third.report.findings.map((f) => f.severity)).toEqual(['MINOR', 'MAJOR']);
    } finally {
      await p.close();
    }
  });
});

describe('budgets (invariant 12)', () => {
  it('rounds exhausted after a complete review: completed / findings / budget', async () => {
    const { r, p } = await setup((a) => ({
      fixer: a,
      budgets: { rounds: 2, wallSeconds: 600, costUsd: 5 },
      policy: { stopWindow: 10 },
    }));
    r.plan({ reviewer: [{ reply: findings(raceFinding()) }], fixer: [{ reply: { disputed: [] } }] });
    try {
      const { report } = await review(p, r.dir);
      expect(report.run).toMatchObject({
        status: 'completed',
        outcome: 'findings',
        stopReason: 'budget',
        roundsDone: 2,
      });
    } finally {
      await p.close();
    }
  });

  it('wall time spent mid-review: not completed, no outcome', async () => {
    const { r, p } = await setup(() => ({ budgets: { rounds: 3, wallSeconds: 1, costUsd: 5 } }));
    r.plan({ reviewer: [{ sleepMs: 4000, reply: pass }] });
    try {
      const { report } = await review(p, r.dir);
      expect(report.run.status).not.toBe('completed');
      expect(report.run).toMatchObject({ status: 'timed_out', outcome: null, reason: 'budget_wall' });
    } finally {
      await p.close();
    }
  });

  it('cost spent by a complete review: completed / findings / budget, and no fix is paid for', async () => {
    const { r, p } = await setup((a) => ({
      fixer: a,
      budgets: { rounds: 5, wallSeconds: 600, costUsd: 0.05 },
    }));
    r.plan({
      reviewer: [{ reply: { ...findings(raceFinding()), usage: { costUsd: 0.08 } } }],
      fixer: [{ reply: { disputed: [] } }],
    });
    try {
      const { report } = await review(p, r.dir);
      expect(report.run).toMatchObject({ status: 'completed', outcome: 'findings', stopReason: 'budget' });
      expect(report.run.costUsd).toBeCloseTo(0.08);
      expect(r.counts().fixer).toBeUndefined();
    } finally {
      await p.close();
    }
  });
});

describe('settlement by a named person', () => {
  it('a fixer dispute waits for settlement; overturned, a new run carries it and ends clear', async () => {
    const { r, p } = await setup((a) => ({ fixer: a }));
    // Round 1 raises the race (in each run); the fixer disputes it; round 2 finds nothing new.
    r.plan({
      reviewer: [{ round: 1, reply: findings(raceFinding()) }, { reply: pass }],
      fixer: [{ disputeAll: 'total is only touched from one task' }],
    });
    let firstId: string;
    try {
      const first = await review(p, r.dir);
      expect(first.report.run).toMatchObject({
        status: 'completed',
        outcome: 'findings',
        stopReason: 'awaiting_settlement',
      });
      firstId = first.report.run.id;
      expect(first.report.findings[0]?.dispute).toMatchObject({ reason: expect.stringMatching(/one task/) });
    } finally {
      await p.close();
    }
    const p2 = await inProcess(r.dir);
    const fid = (await p2.store.listFindings(firstId))[0]?.id as string;
    await p2.close();
    const settled = await runCli(
      ['settle', fid.slice(0, 10), '--by', 'Ada Lovelace', '--decision', 'overturned'],
      { cwd: r.dir },
    );
    expect(settled.code, settled.stderr).toBe(0);
    const again = await runCli(['review', '--head', 'topic', '--json'], { cwd: r.dir });
    expect(again.code, again.stderr).toBe(0);
    expect(again.json).toMatchObject({ admitted: 'created', status: 'completed', outcome: 'clear' });
    expect(again.json?.runId).not.toBe(firstId);
    const f = (again.json as { rounds: { findings: { settlement: { by: string; decision: string } }[] }[] })
      .rounds[0]?.findings[0];
    expect(f?.settlement).toMatchObject({ by: 'Ada Lovelace', decision: 'overturned' });
  });

  it('a change that edits the criteria cannot end clear without a settlement', async () => {
    const r = await makeReviewRepo({
      config: (a) => baseConfig(a),
      change: { 'REVIEW.md': '# Review criteria\n\nAnything goes.\n' },
    });
    repos.push(r);
    r.plan({ reviewer: [{ reply: pass }] });
    const first = await runCli(['review', '--head', 'topic', '--json'], { cwd: r.dir });
    expect(first.code).toBe(1);
    const rows =
      (first.json as { rounds: { findings: { id: string; reviewer: string; file: string }[] }[] }).rounds[0]
        ?.findings ?? [];
    expect(rows).toEqual([expect.objectContaining({ reviewer: 'revloop', file: 'REVIEW.md' })]);
    const id = rows[0]?.id as string;
    expect(
      (await runCli(['settle', id, '--by', 'Grace', '--decision', 'overturned'], { cwd: r.dir })).code,
    ).toBe(0);
    const again = await runCli(['review', '--head', 'topic', '--json'], { cwd: r.dir });
    expect(again.code, again.stderr).toBe(0);
    expect(again.json).toMatchObject({ outcome: 'clear', admitted: 'created' });
  });
});
