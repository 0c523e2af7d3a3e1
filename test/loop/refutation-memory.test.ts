/**
 * Refutations remembered, bound to what they judged, through the real loop:
 * real git repository, real subprocess reviewer and refuter, the SQLite
 * ledger. A claim the refuter refuted is answered from memory when a later
 * run raises it again on lines nobody touched (no refuter call), and goes to
 * the refuter again once a push edits those lines. Every run's replay is
 * checked (invariant 6) by `review`.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { isBlocker } from '../../src/core/run-report.js';
import { stage } from '../../src/core/stage-results.js';
import { summaryBody } from '../../src/forge/render.js';
import { runView } from '../../src/forge/view.js';
import { buildStatement } from '../../src/record/statement.js';
import {
  baseConfig,
  ensureBuilt,
  everyOutput,
  findings,
  HEAD_FILE,
  inProcess,
  makeReviewRepo,
  raceFinding,
  reposRemovedAfterAll,
  review,
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
    } finally {
      await p.close();
    }
  }, 180_000);
});
