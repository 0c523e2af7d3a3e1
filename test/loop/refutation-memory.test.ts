/**
 * Refutations remembered, bound to what they judged, through the real loop:
 * real git repository, real subprocess reviewer and refuter, the SQLite
 * ledger. A claim the refuter refuted is answered from memory when a later
 * run raises it again on lines nobody touched (no refuter call), and goes to
 * the refuter again once a push edits those lines. Every run's replay is
 * checked (invariant 6) by `review`.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { replayRun } from '../../src/core/replay.js';
import type { RunReport } from '../../src/core/run-report.js';
import { isBlocker } from '../../src/core/run-report.js';
import { type RefuteResult, stage } from '../../src/core/stage-results.js';
import { summaryBody } from '../../src/forge/render.js';
import { runView } from '../../src/forge/view.js';
import { sha256 } from '../../src/io/hash.js';
import { buildStatement } from '../../src/record/statement.js';
import { openStore } from '../../src/store/index.js';
import {
  baseConfig,
  CRITERIA,
  ensureBuilt,
  everyOutput,
  findings,
  HEAD_FILE,
  inProcess,
  makeReviewRepo,
  raceFinding,
  replayedReportIn,
  reposRemovedAfterAll,
  review,
  runCli,
  testEnv,
} from './helpers.js';

const repos = reposRemovedAfterAll();
beforeAll(() => ensureBuilt(), 600_000);

describe('a refutation is remembered for the content it judged', () => {
  it('unchanged lines: answered from memory, no refuter call; edited lines: the refuter is asked again', async () => {
    const r = await makeReviewRepo({ config: (a) => baseConfig(a, { refuter: a }) });
    repos.push(r);
    r.plan({
      reviewer: [{ reply: findings(raceFinding()) }],
      refuter: [{ reply: { decision: 'refuted', reason: 'deposit is only called from one queue' } }],
    });
    const p = await inProcess(r.dir);
    try {
      const first = await review(p, r.dir);
      expect(r.counts().refuter).toBe(1);
      expect(first.report.run.outcome).toBe('clear');
      const [judged] = first.report.findings;
      expect(judged?.refutation).toMatchObject({ decision: 'refuted' });
      expect(judged?.refutation?.origin).toBeUndefined();

      // A push that leaves the race's lines (11-14) as they were: a new function above them.
      r.repo.write(
        'src/calc.js',
        HEAD_FILE.replace('let total = 0;', 'export const zero = 0;\nlet total = 0;'),
      );
      r.repo.commit('a push beside the claim');
      r.plan({
        reviewer: [{ reply: findings(raceFinding({ line: 12, endLine: 15 })) }],
        refuter: [{ reply: { decision: 'upheld', reason: 'a refuter asked again would uphold' } }],
      });
      const second = await review(p, r.dir);
      expect(r.counts().refuter).toBe(1);
      expect(second.report.run.outcome).toBe('clear');
      const [again] = second.report.findings;
      expect(again && isBlocker(again)).toBe(false);
      expect(again?.refutation).toEqual({
        decision: 'refuted',
        by: judged?.refutation?.by,
        reason: `refuted earlier in run ${first.run.id}, round 1, by ${judged?.refutation?.by}: deposit is only called from one queue`,
        callKey: judged?.refutation?.callKey,
        origin: {
          runId: first.run.id,
          round: 1,
          findingId: judged?.id,
          callKey: judged?.refutation?.callKey,
        },
      });
      const refute = stage(second.report.stages, 1, 'refute');
      expect(refute?.decisions).toEqual([]);
      expect(refute?.remembered).toEqual([{ findingId: again?.id, origin: again?.refutation?.origin }]);
      // Every output a person reads says where the refutation was made.
      const said = `refuted earlier in run ${first.run.id}, round 1`;
      const outputs = everyOutput(second.report);
      for (const name of ['terminal', 'markdown', 'junit', 'sarif', 'github'])
        expect(outputs[name], name).toContain(said);
      // The signed record carries the refutation with its checkable origin.
      const record = buildStatement(second.report, { finalDiffDigest: 'unused' });
      expect(record.predicate.findings[0]?.refutation).toEqual(again?.refutation);
      const comment = summaryBody({
        view: runView(second.report),
        target: second.report.run.head,
        stale: false,
        record: null,
        check: { conclusion: 'success', title: 'clear' },
        inline: [],
        offDiff: [],
        dismissed: [],
        prior: [],
      });
      expect(comment).toContain(said);

      // Replay decides the memory again from the recorded facts, and notices a record that does not follow.
      const altered = (alter: (c: RunReport) => void) => {
        const c = structuredClone(second.report);
        alter(c);
        return replayRun(c, CRITERIA, sha256).divergence;
      };
      const refuteOf = (c: RunReport): RefuteResult => {
        const x = stage(c.stages, 1, 'refute');
        if (!x) throw new Error('no refute stage');
        return x;
      };
      expect(altered(() => undefined)).toBeNull();
      expect(
        altered((c) => {
          const fact = refuteOf(c).memory?.[0];
          if (fact) fact.now = null;
        }),
      ).toMatchObject({ stage: 'refute', what: 'refutations answered from memory', recomputed: [] });
      expect(
        altered((c) => {
          refuteOf(c).remembered = [];
        }),
      ).toMatchObject({ stage: 'refute', what: 'refutations answered from memory', recorded: [] });
      expect(
        altered((c) => {
          const f = c.findings[0];
          if (f?.refutation?.origin) f.refutation.origin.round = 2;
        }),
      ).toMatchObject({ stage: 'refute', what: `refutation of ${again?.id}` });

      // A third run of the same revision, forced: memory answers from the first-hand decision, never chains.
      const third = await review(p, r.dir, { rerun: { by: 'test', reason: 'again' } });
      expect(r.counts().refuter).toBe(1);
      expect(third.report.findings[0]?.refutation?.origin?.runId).toBe(first.run.id);

      // A push that edits the race's lines: the refuter judges the new content.
      r.repo.write(
        'src/calc.js',
        HEAD_FILE.replace('let total = 0;', 'export const zero = 0;\nlet total = 0;').replace(
          'total = seen + n;',
          'total = seen + n + 0;',
        ),
      );
      r.repo.commit('a push on the claim');
      const fourth = await review(p, r.dir);
      expect(r.counts().refuter).toBe(2);
      expect(fourth.report.run.outcome).toBe('findings');
      const [edited] = fourth.report.findings;
      expect(edited?.refutation).toMatchObject({ decision: 'upheld' });
      expect(edited?.refutation?.origin).toBeUndefined();

      // Another change (another branch) with the very lines the refuter refuted: never answered from memory.
      r.repo.git(['checkout', '-q', '-b', 'other']);
      r.repo.write(
        'src/calc.js',
        `${HEAD_FILE.replace('let total = 0;', 'export const zero = 0;\nlet total = 0;')}// other\n`,
      );
      r.repo.commit('the same lines on another change');
      const elsewhere = await review(p, r.dir, { headRef: 'other' });
      expect(elsewhere.report.run.changeKey).not.toBe(first.report.run.changeKey);
      expect(r.counts().refuter).toBe(3);
      expect(elsewhere.report.findings[0]?.refutation).toMatchObject({ decision: 'upheld' });
      expect(stage(elsewhere.report.stages, 1, 'refute')?.memory).toBeUndefined();
    } finally {
      await p.close();
    }
  }, 180_000);
});

/** A second claim, on `add` (lines 1-3), which the refuter upholds. */
const addFinding = {
  severity: 'MAJOR',
  file: 'src/calc.js',
  line: 2,
  endLine: 2,
  claim: 'add does not handle a missing input',
  failureScenario: 'add(undefined, 1) returns NaN and the caller stores NaN as the balance',
};
const refuteRace = { reply: { decision: 'refuted', reason: 'deposit is only called from one queue' } };
const upholdAdd = { when: addFinding.claim, reply: { decision: 'upheld', reason: 'a real defect' } };

describe('a refutation is remembered across the rounds of one run', () => {
  it("a fix elsewhere: round 2's raise of the refuted claim costs no refuter call", async () => {
    const r = await makeReviewRepo({ config: (a) => baseConfig(a, { refuter: a, fixer: a }) });
    repos.push(r);
    r.plan({
      reviewer: [
        { round: 1, reply: findings(raceFinding(), addFinding) },
        { reply: findings(raceFinding()) },
      ],
      refuter: [upholdAdd, refuteRace],
      fixer: [
        {
          write: { 'src/calc.js': HEAD_FILE.replace('return a + b;', 'return (a ?? 0) + (b ?? 0);') },
          reply: { disputed: [] },
        },
      ],
    });
    const p = await inProcess(r.dir);
    try {
      const { run, report } = await review(p, r.dir);
      expect(r.counts().refuter).toBe(2);
      expect(report.run.outcome).toBe('clear');
      const judged = report.findings.find((f) => f.round === 1 && f.reported.line === 11);
      const again = report.findings.find((f) => f.round === 2);
      expect(again?.refutation?.origin).toEqual({
        runId: run.id,
        round: 1,
        findingId: judged?.id,
        callKey: judged?.refutation?.callKey,
      });
      expect(again?.refutation?.reason).toContain(`refuted earlier in run ${run.id}, round 1`);
    } finally {
      await p.close();
    }
  }, 180_000);
});

describe('invariant 5: a remembered refutation is recorded with the refute stage, in its one completion', () => {
  it('killed before the stage is recorded: nothing remembered is left behind; resumed, it is remembered once', async () => {
    const r = await makeReviewRepo({ config: (a) => baseConfig(a, { refuter: a }) });
    repos.push(r);
    r.plan({ reviewer: [{ reply: findings(raceFinding()) }], refuter: [refuteRace] });
    const first = await runCli(['review', '--head', 'topic', '--json'], { cwd: r.dir });
    expect(first.code, first.stderr).toBe(0);
    r.repo.write(
      'src/calc.js',
      HEAD_FILE.replace('let total = 0;', 'export const zero = 0;\nlet total = 0;'),
    );
    r.repo.commit('a push beside the claim');
    const race = raceFinding({ line: 12, endLine: 15 });
    // One raise answered from memory and one the refuter is asked about, in the same stage.
    r.plan({ reviewer: [{ reply: findings(race, addFinding) }], refuter: [upholdAdd, refuteRace] });
    const killed = await runCli(['review', '--head', 'topic', '--json'], {
      cwd: r.dir,
      env: testEnv({ REVLOOP_CRASH_AT: 'before-complete:refute' }),
    });
    expect(killed.code, killed.stderr).toBe(-1);
    expect(r.counts().refuter).toBe(2);
    const store = await openStore('sqlite:.revloop/ledger.db', { repoRoot: r.dir });
    let second = '';
    try {
      const runs = await store.listRuns();
      second = runs.find((x) => x.id !== (first.json?.runId as string))?.id as string;
      // The stage was never recorded, so neither is what it remembered.
      expect((await store.listFindings(second)).map((f) => f.refutation)).toEqual([null, null]);
      expect((await store.listStages(second)).map((s) => s.stage)).not.toContain('refute');
    } finally {
      await store.close();
    }
    const resumed = await runCli(['review', '--head', 'topic', '--json'], { cwd: r.dir });
    expect(resumed.code, resumed.stderr).toBe(1);
    // `review --json` names the origin too.
    const rounds = resumed.json?.rounds as { findings: { refutation: { origin?: unknown } | null }[] }[];
    expect(rounds[0]?.findings[0]?.refutation?.origin).toMatchObject({ runId: first.json?.runId, round: 1 });
    // The refuter's verdict on the new claim was kept; nothing is asked twice.
    expect(r.counts().refuter).toBe(2);
    const report = await replayedReportIn(r, second);
    const [remembered, upheld] = report.findings;
    expect(remembered?.refutation?.origin?.runId).toBe(first.json?.runId);
    expect(upheld?.refutation).toMatchObject({ decision: 'upheld' });
    expect(upheld?.refutation?.origin).toBeUndefined();
    expect(stage(report.stages, 1, 'refute')?.remembered).toHaveLength(1);
    expect(stage(report.stages, 1, 'refute')?.decisions).toHaveLength(1);
  }, 180_000);
});
