/**
 * The calibration ledger under repeat sampling: a round log whose findings
 * carry `reproduction` gives each such reviewer its reproduction rate; a log
 * without counts reads exactly as before. The dashboard's ledger is the same
 * analysis over the runs' round logs.
 */
import { describe, expect, it } from 'vitest';
import { analyzeRoundLog } from '../../src/analyze/analyze.js';
import { renderAnalyzeReport } from '../../src/analyze/report.js';
import { verdictViews } from '../../src/web/run-view.js';

const finding = (reviewer: string, seen: number | null, extra: Record<string, unknown> = {}) => ({
  reviewer,
  severity: 'MODERATE',
  overturned: false,
  ...(seen === null ? {} : { reproduction: { seen, of: 3 } }),
  ...extra,
});

describe('reproduction in the calibration ledger', () => {
  it('gives each sampled reviewer the share of its findings more than one sample found', () => {
    const r = analyzeRoundLog({
      rounds: [
        {
          findings: [
            finding('a', 3),
            finding('a', 2),
            finding('a', 1, { demotedBy: 'unreproduced' }),
            finding('a', 1, { demotedBy: 'unreproduced' }),
            finding('b', null),
          ],
        },
      ],
    });
    const [a, b] = r.reviewers;
    expect(a?.reproduction).toEqual({ sampled: 4, reproduced: 2, rate: 0.5 });
    // A procedural demotion, not an overturn: the two unreproduced ones are not judged.
    expect(a).toMatchObject({ blockersRaised: 4, demoted: 2, overturned: 0 });
    expect(b?.reproduction).toBeUndefined();
    const text = renderAnalyzeReport(r);
    expect(text).toContain('| a | 4 | 2 | 50.0% |');
    expect(text).toContain('Reproduction rate');
  });

  it('a log without counts has no reproduction column', () => {
    const r = analyzeRoundLog({ rounds: [{ findings: [finding('a', null)] }] });
    expect(r.reviewers[0]?.reproduction).toBeUndefined();
    expect(renderAnalyzeReport(r)).not.toContain('Reproduction rate');
  });

  it("the dashboard folds a reviewer's samples into one verdict that says how many were drawn", () => {
    const v = (sample: number, verdict: 'pass' | 'findings') => ({
      reviewer: 'a',
      callKey: `k${sample}`,
      verdict,
      modelId: null,
      sample,
    });
    expect(verdictViews([v(0, 'findings'), v(1, 'pass'), v(2, 'pass')])).toEqual([
      { reviewer: 'a', verdict: 'findings', modelId: null, samples: 3 },
    ]);
  });
});
