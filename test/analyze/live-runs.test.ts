/**
 * Issue 19: the round export carries each round's progress evidence and the
 * stop reason, and `analyze` reproduces the live loop's stop from it, on the
 * demo's real runs (real git, the real SQLite ledger, the CLI's export) and on
 * the seed 003 receipt.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { analyzeRoundLog } from '../../src/analyze/index.js';
import { roundLog } from '../../src/core/run-report.js';
import { runDemo } from '../../src/demo/run-demo.js';
import { ensureBuilt, revloop } from '../sim/cli-support.js';

type Demo = Awaited<ReturnType<typeof runDemo>>;
let clear: Demo;
let oscillation: Demo;

beforeAll(async () => {
  ensureBuilt();
  const env = { PATH: process.env.PATH };
  [clear, oscillation] = await Promise.all([
    runDemo({ scenario: 'default', env }),
    runDemo({ scenario: 'oscillation', env }),
  ]);
}, 180_000);

describe("analyze reproduces the live loop's stop from the export", () => {
  it('the default demo: clear at round 2, the stop rule never fires', () => {
    expect(clear.report.run.stopReason).toBe('clear');
    const r = analyzeRoundLog(roundLog(clear.report));
    expect(r.stopRule).toBe('evidence');
    expect(r.stopRuleFiredAt).toBeNull();
    expect(r.recordedStopReason).toBe('clear');
    expect(r.reproducesRecord).toBe(true);
    // The demo's vague MODERATE was demoted by the gate: procedural, so standards is not read as noisy.
    const standards = r.reviewers.find((x) => x.reviewer === 'standards')!;
    expect(standards.demoted).toBeGreaterThan(0);
    expect(standards.overturned).toBe(0);
    // The wrong MODERATE was refuted before rework: it never blocked its round.
    expect(r.rounds[0]!.refuted).toBe(1);
  });

  it('the oscillation demo, through `revloop export --format rounds` and `revloop analyze`', () => {
    expect(oscillation.report.run.stopReason).toBe('no_progress');
    const exported = revloop([
      'export',
      oscillation.report.run.id,
      '--format',
      'rounds',
      '--repo',
      oscillation.dir,
    ]);
    expect(exported.stderr).toBe('');
    expect(exported.status).toBe(0);
    const log = JSON.parse(exported.stdout);
    expect(log.stopReason).toBe('no_progress');
    expect(log.rounds.every((r: { evidence: unknown }) => r.evidence !== null)).toBe(true);
    const analyzed = revloop(['analyze', '-', '--json'], { input: exported.stdout });
    expect(analyzed.status).toBe(0);
    const r = JSON.parse(analyzed.stdout);
    expect(r.stopRule).toBe('evidence');
    expect(r.stopRuleFiredAt).toBe(oscillation.report.rounds.length);
    expect(r.reproducesRecord).toBe(true);
    expect(r.rounds.map((x: { blocking: number }) => x.blocking)).toEqual(
      log.rounds.map((x: { blocking: number }) => x.blocking),
    );
  });

  it('the seed 003 receipt: one upheld MAJOR, then zero; strictly decreasing, the stop rule never fired', () => {
    const receipt = {
      rounds: [
        { findings: [{ reviewer: 'gate-a', severity: 'MAJOR', overturned: false }] },
        { findings: [] },
      ],
    };
    const r = analyzeRoundLog(receipt);
    expect(r.rounds.map((x) => x.blocking)).toEqual([1, 0]);
    expect(r.converged).toBe(true);
    expect(r.roundsToConverge).toBe(2);
    expect(r.divergentRounds).toEqual([]);
    expect(r.stopRuleFiredAt).toBeNull();
    expect(analyzeRoundLog({ ...receipt, stopReason: 'clear' }).reproducesRecord).toBe(true);
  });
});
