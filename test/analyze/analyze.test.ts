import { describe, expect, it } from 'vitest';
import {
  analyzeChartSpec,
  analyzeRoundLog,
  readCalibration,
  renderAnalyzeReport,
} from '../../src/analyze/index.js';
import type { RoundLog } from '../../src/core/run-report.js';
import { renderTerminalChart } from '../../src/report/chart-terminal.js';

type Sev = 'MAJOR' | 'MODERATE' | 'MINOR';
const f = (reviewer: string, severity: Sev, overturned = false) => ({ reviewer, severity, overturned });
/** A log whose round k has `n` standing MODERATE blockers from reviewer "r". */
const byCounts = (...counts: number[]) => ({
  rounds: counts.map((n) => ({ findings: Array.from({ length: n }, () => f('r', 'MODERATE')) })),
});

describe('analyze: per-round counts', () => {
  it('blocking counts standing MAJOR and MODERATE; minor counts MINOR; overturned counts every overturned', () => {
    const r = analyzeRoundLog({
      rounds: [
        {
          findings: [
            f('a', 'MAJOR'),
            f('a', 'MODERATE'),
            f('b', 'MODERATE', true),
            f('b', 'MINOR'),
            f('c', 'MINOR', true),
            f('c', 'MAJOR', true),
          ],
        },
        { findings: [] },
      ],
    });
    expect(r.rounds).toEqual([
      { round: 1, blocking: 2, minor: 2, overturned: 3 },
      { round: 2, blocking: 0, minor: 0, overturned: 0 },
    ]);
  });
});

describe('analyze: convergence, divergence and the stop rule', () => {
  const cases: {
    counts: number[];
    converged: boolean;
    roundsToConverge: number | null;
    divergentRounds: number[];
    stopRuleFiredAt: number | null;
  }[] = [
    { counts: [], converged: false, roundsToConverge: null, divergentRounds: [], stopRuleFiredAt: null },
    { counts: [0], converged: true, roundsToConverge: 1, divergentRounds: [], stopRuleFiredAt: null },
    {
      counts: [3, 2, 1, 0],
      converged: true,
      roundsToConverge: 4,
      divergentRounds: [],
      stopRuleFiredAt: null,
    },
    // equal counts are divergent (not below); a single one does not fire the rule
    {
      counts: [3, 3, 2, 0],
      converged: true,
      roundsToConverge: 4,
      divergentRounds: [2],
      stopRuleFiredAt: null,
    },
    // two consecutive divergent rounds fire at the second
    {
      counts: [3, 3, 4, 1],
      converged: false,
      roundsToConverge: null,
      divergentRounds: [2, 3],
      stopRuleFiredAt: 3,
    },
    // a rise after a clear round is not divergent: round k-1 must be above 0
    {
      counts: [2, 0, 1, 1],
      converged: false,
      roundsToConverge: 2,
      divergentRounds: [4],
      stopRuleFiredAt: null,
    },
    {
      counts: [1, 0, 0, 0],
      converged: true,
      roundsToConverge: 2,
      divergentRounds: [],
      stopRuleFiredAt: null,
    },
    // divergent rounds that are not consecutive never fire (the sawtooth U4 cannot bound)
    {
      counts: [5, 6, 5, 6, 5, 6],
      converged: false,
      roundsToConverge: null,
      divergentRounds: [2, 4, 6],
      stopRuleFiredAt: null,
    },
    // the rule fires once, at the first pair; later divergent rounds are still listed
    {
      counts: [2, 2, 2, 2, 1],
      converged: false,
      roundsToConverge: null,
      divergentRounds: [2, 3, 4],
      stopRuleFiredAt: 3,
    },
  ];
  it.each(cases)('blocking $counts', ({ counts, ...expected }) => {
    const r = analyzeRoundLog(byCounts(...counts));
    expect(r.rounds.map((x) => x.blocking)).toEqual(counts);
    expect({
      converged: r.converged,
      roundsToConverge: r.roundsToConverge,
      divergentRounds: r.divergentRounds,
      stopRuleFiredAt: r.stopRuleFiredAt,
    }).toEqual(expected);
  });

  it('MINOR and overturned findings do not count toward divergence', () => {
    const r = analyzeRoundLog({
      rounds: [
        { findings: [f('a', 'MAJOR'), f('a', 'MAJOR')] },
        { findings: [f('a', 'MAJOR'), f('b', 'MINOR'), f('b', 'MODERATE', true), f('c', 'MINOR')] },
      ],
    });
    expect(r.rounds.map((x) => x.blocking)).toEqual([2, 1]);
    expect(r.divergentRounds).toEqual([]);
  });
});

describe('analyze: the calibration ledger', () => {
  it('counts blockers raised (overturned or not), their overturns and the rate, sorted by name', () => {
    const r = analyzeRoundLog({
      rounds: [
        { findings: [f('zeta', 'MAJOR', true), f('alpha', 'MODERATE'), f('Beta', 'MINOR', true)] },
        { findings: [f('zeta', 'MODERATE', true), f('zeta', 'MODERATE'), f('alpha', 'MINOR')] },
      ],
    });
    expect(r.reviewers).toEqual([
      // code-unit order: upper case first
      { reviewer: 'Beta', blockersRaised: 0, overturned: 0, overturnRate: 0, read: 'raised no blockers' },
      {
        reviewer: 'alpha',
        blockersRaised: 1,
        overturned: 0,
        overturnRate: 0,
        read: 'calibrated: every blocker stood (only 1 raised: weak evidence)',
      },
      {
        reviewer: 'zeta',
        blockersRaised: 3,
        overturned: 2,
        overturnRate: 0.667,
        read: 'inflating: half or more of its blockers did not stand',
      },
    ]);
  });

  it.each([
    [0, 0, 'raised no blockers'],
    [10, 0, 'calibrated: every blocker stood'],
    [10, 1, 'calibrated: almost all of its blockers stood'],
    [10, 2, 'noisy: one in five or more of its blockers did not stand'],
    [10, 4, 'noisy: one in five or more of its blockers did not stand'],
    [10, 5, 'inflating: half or more of its blockers did not stand'],
    [2, 1, 'inflating: half or more of its blockers did not stand (only 2 raised: weak evidence)'],
    [3, 1, 'noisy: one in five or more of its blockers did not stand'],
  ])('reads %i raised, %i overturned as "%s"', (raised, overturned, read) => {
    expect(readCalibration(raised, overturned)).toBe(read);
  });
});

describe('analyze: input it accepts', () => {
  it("reads the ledger's export (RoundLog) with its extra fields", () => {
    const log: RoundLog = {
      runId: 'run-1',
      rounds: [
        {
          round: 1,
          head: 'abc',
          blocking: 1,
          findings: [
            {
              id: 'f1',
              reviewer: 'standards',
              severity: 'MAJOR',
              overturned: false,
              effectiveSeverity: 'MAJOR',
              blocking: true,
              file: 'a.ts',
              line: 3,
              claim: 'x',
              because: null,
            },
            {
              id: 'f2',
              reviewer: 'annotations',
              severity: 'MODERATE',
              overturned: true,
              effectiveSeverity: 'MINOR',
              blocking: false,
              file: 'a.ts',
              line: 9,
              claim: 'y',
              because: 'demoted',
            },
          ],
        },
        { round: 2, head: 'def', blocking: 0, findings: [] },
      ],
    };
    const r = analyzeRoundLog(log);
    expect(r.rounds.map((x) => x.blocking)).toEqual(log.rounds.map((x) => x.blocking));
    expect(r.converged).toBe(true);
    expect(r.reviewers.map((x) => [x.reviewer, x.overturnRate])).toEqual([
      ['annotations', 1],
      ['standards', 0],
    ]);
  });

  it('prints the exact JSON key order the issue fixes', () => {
    const r = analyzeRoundLog(byCounts(1, 0));
    expect(Object.keys(r)).toEqual([
      'rounds',
      'converged',
      'roundsToConverge',
      'divergentRounds',
      'stopRuleFiredAt',
      'reviewers',
    ]);
    expect(Object.keys(r.rounds[0]!)).toEqual(['round', 'blocking', 'minor', 'overturned']);
    expect(Object.keys(r.reviewers[0]!)).toEqual([
      'reviewer',
      'blockersRaised',
      'overturned',
      'overturnRate',
      'read',
    ]);
  });

  it('renders a readable report with the verdict, ledger and chart', () => {
    const r = analyzeRoundLog(byCounts(3, 3, 4, 1));
    const text = renderAnalyzeReport(r);
    expect(text).toContain('| 3 | 4 | 0 | 0 | divergent, stop rule |');
    expect(text).toContain('The stop rule fires at round 3');
    expect(text).toContain('| r | 11 | 0 | 0.0% | calibrated: every blocker stood |');
    expect(text).toContain(renderTerminalChart(analyzeChartSpec(r)));
    expect(renderAnalyzeReport(analyzeRoundLog({ rounds: [] }))).toContain('The log has no rounds');
  });
});
