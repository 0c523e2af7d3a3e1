import { describe, expect, it } from 'vitest';
import {
  analyzeChartSpec,
  analyzeParsed,
  analyzeRoundLog,
  parseRoundLogText,
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
  it('blocking keeps a blocker overturned later; refuted and demoted ones never blocked; minor counts MINOR', () => {
    const r = analyzeRoundLog({
      rounds: [
        {
          findings: [
            f('a', 'MAJOR'),
            f('a', 'MODERATE'),
            f('b', 'MODERATE', true), // shown wrong later: it blocked this round
            f('b', 'MINOR'),
            f('c', 'MINOR', true),
            { ...f('c', 'MAJOR', true), refuted: true }, // refuted before rework: never blocked
            { ...f('d', 'MAJOR'), demotedBy: 'scope_lock' }, // procedural: not blocking, not an overturn
          ],
        },
        { findings: [] },
      ],
    });
    expect(r.rounds).toEqual([
      {
        round: 1,
        blocking: 3,
        minor: 2,
        overturned: 3,
        refuted: 1,
        overturnedLater: 1,
        demoted: 1,
        progress: true,
      },
      {
        round: 2,
        blocking: 0,
        minor: 0,
        overturned: 0,
        refuted: 0,
        overturnedLater: 0,
        demoted: 0,
        progress: true,
      },
    ]);
  });

  it('a loop that spent 4 rounds on wrong blockers reads [1,1,1,1], not [0,0,0,0] (issue 19)', () => {
    const wrong = { findings: [f('standards', 'MODERATE', true)] };
    const r = analyzeRoundLog({ rounds: [wrong, wrong, wrong, wrong] });
    expect(r.rounds.map((x) => x.blocking)).toEqual([1, 1, 1, 1]);
    expect(r.rounds.map((x) => x.overturnedLater)).toEqual([1, 1, 1, 1]);
    expect(r.roundsOnWrongBlockers).toBe(4);
    expect(r.stopRuleFiredAt).toBe(3);
    expect(renderAnalyzeReport(r)).toContain('4 round(s) spent work on a blocker shown wrong later.');
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
    // equal counts are divergent (not below); two in a row fire the rule
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

  it('MINOR, refuted and demoted findings do not count toward divergence', () => {
    const r = analyzeRoundLog({
      rounds: [
        { findings: [f('a', 'MAJOR'), f('a', 'MAJOR')] },
        {
          findings: [
            f('a', 'MAJOR'),
            f('b', 'MINOR'),
            { ...f('b', 'MODERATE', true), refuted: true },
            { ...f('b', 'MODERATE'), demotedBy: 'no_scenario' },
            f('c', 'MINOR'),
          ],
        },
      ],
    });
    expect(r.rounds.map((x) => x.blocking)).toEqual([2, 1]);
    expect(r.divergentRounds).toEqual([]);
  });

  it('[3,0,3,3]: the count rule and the live decision agree (a clear round resets nothing, none fires)', () => {
    const r = analyzeRoundLog(byCounts(3, 0, 3, 3));
    expect(r.divergentRounds).toEqual([4]);
    expect(r.stopRuleFiredAt).toBeNull();
    expect(r.countRuleFiredAt).toBeNull();
  });

  it('is linear: a 20k-round log that never fires takes about as long as one that does', () => {
    // A sawtooth (2, 1, 2, 1, ...): every other round is divergent, never two in a row.
    const never = {
      // 20k rounds: a quadratic scan is 20,000 times slower than a linear one, far past any load's noise.
      rounds: Array.from({ length: 20_000 }, (_, k) => ({
        findings: k % 2 ? [f('r', 'MAJOR')] : [f('r', 'MAJOR'), f('r', 'MAJOR')],
      })),
    };
    const fires = { rounds: Array.from({ length: 20_000 }, () => ({ findings: [f('r', 'MAJOR')] })) };
    const time = (doc: unknown) => {
      const t = performance.now();
      analyzeRoundLog(doc);
      return performance.now() - t;
    };
    time(never);
    time(fires);
    // The fastest of three: a run the scheduler preempted (a loaded machine) does not count.
    const fastest = (doc: unknown) => Math.min(...Array.from({ length: 3 }, () => time(doc)));
    const a = fastest(never);
    const b = fastest(fires);
    expect(analyzeRoundLog(never).stopRuleFiredAt).toBeNull();
    expect(analyzeRoundLog(fires).stopRuleFiredAt).toBe(3);
    // The quadratic scan took 10x longer on the log that never fires; a generous bound, not a timing race.
    expect(a).toBeLessThan(5 * b + 50);
  });
});

describe('analyze: the calibration ledger', () => {
  it('counts blockers raised, procedural demotions apart, refuted and overturned later, sorted by name', () => {
    const r = analyzeRoundLog({
      rounds: [
        {
          findings: [
            f('zeta', 'MAJOR', true),
            f('alpha', 'MODERATE'),
            f('Beta', 'MINOR', true),
            { ...f('alpha', 'MAJOR'), demotedBy: 'scope_lock' },
            { ...f('alpha', 'MAJOR'), demotedBy: 'no_scenario' },
          ],
        },
        {
          findings: [
            { ...f('zeta', 'MODERATE', true), refuted: true },
            f('zeta', 'MODERATE'),
            f('alpha', 'MINOR'),
          ],
        },
      ],
    });
    expect(r.reviewers).toEqual([
      // code-unit order: upper case first
      {
        reviewer: 'Beta',
        blockersRaised: 0,
        demoted: 0,
        refuted: 0,
        overturnedLater: 0,
        overturned: 0,
        overturnRate: 0,
        read: 'raised no blockers',
      },
      {
        // Two gate demotions do not make alpha look noisy: only its judged blocker counts.
        reviewer: 'alpha',
        blockersRaised: 3,
        demoted: 2,
        refuted: 0,
        overturnedLater: 0,
        overturned: 0,
        overturnRate: 0,
        read: 'calibrated: every blocker stood (only 1 raised: weak evidence)',
      },
      {
        reviewer: 'zeta',
        blockersRaised: 3,
        demoted: 0,
        refuted: 1,
        overturnedLater: 1,
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
  it("reads the ledger's export (RoundLog) with its extra fields, and reproduces the live stop from its evidence", () => {
    const finding = (
      id: string,
      reviewer: string,
      extra: Partial<RoundLog['rounds'][number]['findings'][number]>,
    ) => ({
      id,
      reviewer,
      severity: 'MAJOR' as const,
      overturned: false,
      refuted: false,
      demotedBy: null,
      effectiveSeverity: 'MAJOR' as const,
      blockedInRound: true,
      blocking: true,
      file: 'a.ts',
      line: 3,
      claim: 'x',
      because: null,
      ...extra,
    });
    const evidence = (progress: boolean) => ({
      progress,
      checksNowPassing: [],
      fixed: [],
      settled: [],
      shrank: false,
    });
    const log: RoundLog = {
      runId: 'run-1',
      status: 'completed',
      outcome: 'findings',
      stopReason: 'no_progress',
      stopWindow: 2,
      shrinkRatio: 0.2,
      rounds: [
        {
          round: 1,
          head: 'abc',
          blocking: 1,
          evidence: evidence(true),
          decision: 'fix',
          findings: [
            finding('f1', 'standards', {}),
            finding('f2', 'annotations', {
              severity: 'MODERATE',
              effectiveSeverity: 'MINOR',
              blockedInRound: false,
              blocking: false,
              demotedBy: 'no_scenario',
              because: 'demoted',
            }),
          ],
        },
        // The count falls (2 -> 1) but nothing was fixed with evidence: the live rule sees no progress.
        {
          round: 2,
          head: 'def',
          blocking: 2,
          evidence: evidence(false),
          decision: 'fix',
          findings: [
            finding('f3', 'standards', {}),
            finding('f4', 'annotations', { blocking: false, overturned: true }),
          ],
        },
        {
          round: 3,
          head: 'fed',
          blocking: 1,
          evidence: evidence(false),
          decision: 'no_progress',
          findings: [finding('f5', 'standards', {})],
        },
      ],
    };
    const r = analyzeRoundLog(log);
    expect(r.rounds.map((x) => x.blocking)).toEqual([1, 2, 1]);
    expect(r.stopRule).toBe('evidence');
    expect(r.stopRuleFiredAt).toBe(3);
    expect(r.countRuleFiredAt).toBeNull();
    expect(r.reproducesRecord).toBe(true);
    expect(r.reviewers.map((x) => [x.reviewer, x.demoted, x.overturnedLater, x.overturnRate])).toEqual([
      ['annotations', 1, 1, 1],
      ['standards', 0, 0, 0],
    ]);
    // Without the evidence the seed's rule applies, and says it cannot reproduce the loop's stop.
    const bare = analyzeRoundLog({ ...log, rounds: log.rounds.map(({ evidence: _e, ...rest }) => rest) });
    expect(bare.stopRule).toBe('count');
    expect(bare.reproducesRecord).toBe(false);
  });

  it('prints the exact JSON key order docs/sim.md states', () => {
    const r = analyzeRoundLog(byCounts(1, 0));
    expect(Object.keys(r)).toEqual([
      'rounds',
      'converged',
      'unjudged',
      'roundsToConverge',
      'divergentRounds',
      'stopRule',
      'stopWindow',
      'stopRuleFiredAt',
      'countRuleFiredAt',
      'recordedStopReason',
      'reproducesRecord',
      'roundsOnWrongBlockers',
      'reviewers',
    ]);
    expect(Object.keys(r.rounds[0]!)).toEqual([
      'round',
      'blocking',
      'minor',
      'overturned',
      'refuted',
      'overturnedLater',
      'demoted',
      'progress',
    ]);
    expect(Object.keys(r.reviewers[0]!)).toEqual([
      'reviewer',
      'blockersRaised',
      'demoted',
      'refuted',
      'overturnedLater',
      'overturned',
      'overturnRate',
      'read',
    ]);
  });

  it('renders a readable report with the verdict, ledger and chart', () => {
    const r = analyzeRoundLog(byCounts(3, 3, 4, 1));
    const text = renderAnalyzeReport(r);
    expect(text).toContain('| 3 | 4 | 0 | 0 | 0 | 0 | no | divergent, stop rule |');
    expect(text).toContain('The stop rule fires at round 3');
    expect(text).toContain('| r | 11 | 0 | 0 | 0 | 0.0% | calibrated: every blocker stood |');
    expect(text).toContain(renderTerminalChart(analyzeChartSpec(r)));
    expect(renderAnalyzeReport(analyzeRoundLog({ rounds: [] }))).toContain('The log has no rounds');
  });

  it('a reviewer name with a newline or a pipe cannot break the table', () => {
    const r = analyzeRoundLog({ rounds: [{ findings: [f('evil\n| 9 | 9 |\r\tx', 'MAJOR')] }] });
    const text = renderAnalyzeReport(r);
    const rows = text.split('\n').filter((l) => l.startsWith('| evil'));
    expect(rows).toEqual([
      '| evil\\n\\| 9 \\| 9 \\|\\r\\tx | 1 | 0 | 0 | 0 | 0.0% | calibrated: every blocker stood (only 1 raised: weak evidence) |',
    ]);
  });

  it('accepts a UTF-8 byte-order mark', () => {
    const text = `\ufeff${JSON.stringify(byCounts(1, 0))}`;
    expect(analyzeParsed(parseRoundLogText(text)).converged).toBe(true);
  });
});
