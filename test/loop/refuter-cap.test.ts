/**
 * A reply of hundreds of blockers costs at most `review.maxRefutedPerReply`
 * refuter calls: the rest are recorded, shown and stand as blockers, so a
 * refuter that refutes everything it is asked cannot clear them. Real git, real
 * subprocess agents, a real SQLite ledger.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { isBlocker } from '../../src/core/run-report.js';
import { stage } from '../../src/core/stage-results.js';
import { renderRunSummary } from '../../src/report/terminal.js';
import {
  baseConfig,
  ensureBuilt,
  findings,
  inProcess,
  makeReviewRepo,
  raceFinding,
  reposRemovedAfterAll,
  review,
} from './helpers.js';

const repos = reposRemovedAfterAll();
beforeAll(() => ensureBuilt(), 600_000);

describe('blockers per reply are capped before they cost refuter calls', () => {
  it('200 MAJOR findings in one reply: at most 20 refuter calls, and the run does not end clear', async () => {
    const r = await makeReviewRepo({ config: (a) => baseConfig(a, { refuter: a }) });
    repos.push(r);
    const p = await inProcess(r.dir);
    const many = Array.from({ length: 200 }, (_, i) =>
      raceFinding({ line: 1 + (i % 15), endLine: 1 + (i % 15), claim: `defect number ${i} in deposit` }),
    );
    r.plan({
      reviewer: [{ reply: findings(...many) }],
      refuter: [{ reply: { decision: 'refuted', reason: 'not a defect' } }],
    });
    try {
      const { report } = await review(p, r.dir);
      expect(r.counts().refuter).toBe(20);
      expect(report.run.outcome).not.toBe('clear');
      expect(report.findings).toHaveLength(200);
      expect(report.findings.filter(isBlocker)).toHaveLength(180);
      expect(stage(report.stages, 1, 'refute')?.overCap).toHaveLength(180);
      expect(renderRunSummary(report)).toContain(
        "180 blocker(s) past the refuter's per-reply cap, not refuted",
      );
    } finally {
      await p.close();
    }
  }, 120_000);
});
