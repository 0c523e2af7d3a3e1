/**
 * A failing check never ends clear: the fixer's edit removes the reviewer's
 * blocker but breaks the configured check, which passed on the change as
 * admitted; the next review passes. The run must not end clear, and every
 * output names the check. Real git, real subprocess agents, a real check
 * command, a real SQLite ledger.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { isBlocker } from '../../src/core/run-report.js';
import {
  baseConfig,
  ensureBuilt,
  everyOutput,
  FIXED_FILE,
  findings,
  inProcess,
  makeReviewRepo,
  pass,
  raceFinding,
  reposRemovedAfterAll,
  review,
} from './helpers.js';

const repos = reposRemovedAfterAll();
beforeAll(() => ensureBuilt(), 600_000);

describe('a check that passed earlier in the run and fails now is a blocker', () => {
  it("the fixer's edit breaks the syntax check: the run does not end clear, and every output names the check", async () => {
    const r = await makeReviewRepo({
      config: (a) =>
        baseConfig(a, {
          fixer: a,
          checks: [{ name: 'syntax', run: ['node', '--check', 'src/calc.js'] }],
        }),
    });
    repos.push(r);
    const p = await inProcess(r.dir);
    r.plan({
      reviewer: [{ round: 1, reply: findings(raceFinding()) }, { reply: pass }],
      // The blocker's lines are rewritten, and the file no longer parses.
      fixer: [
        { write: { 'src/calc.js': `${FIXED_FILE}\nexport function broken( {\n` }, reply: { disputed: [] } },
      ],
    });
    try {
      const { report } = await review(p, r.dir);
      expect(report.run).toMatchObject({ status: 'completed', outcome: 'findings' });
      expect(report.run.outcome).not.toBe('clear');
      const checks = report.stages.filter((s) => s.stage === 'checks').map((s) => s.result);
      expect(checks.map((c) => (c as { results: { passed: boolean }[] }).results[0]?.passed)).toEqual([
        true,
        false,
      ]);
      const blockers = report.findings.filter((f) => f.round === 2 && isBlocker(f));
      expect(blockers).toHaveLength(1);
      expect(blockers[0]).toMatchObject({ round: 2, reviewer: 'revloop', revision: report.run.head });
      expect(blockers[0]?.reported.claim).toContain('The check syntax fails at');
      for (const [name, text] of Object.entries(everyOutput(report)))
        expect(text, name).toContain('The check syntax fails at');
    } finally {
      await p.close();
    }
  });
});
