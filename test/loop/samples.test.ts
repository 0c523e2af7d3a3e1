/**
 * Repeat sampling through the real loop: a reviewer called three times on
 * one prompt, a MODERATE that only one sample raised does not block (it is
 * kept, shown, "seen in 1 of 3 samples"), a lone MAJOR still goes to the
 * refuter, and `on: blockers` draws no more samples when the first passes.
 * Real git, real subprocess agents (each told its sample), a real SQLite
 * ledger; every run is replayed (invariant 6).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { replayRun } from '../../src/core/replay.js';
import { isBlocker, type RunReport } from '../../src/core/run-report.js';
import { type ReviewResult, stage } from '../../src/core/stage-results.js';
import { summaryBody } from '../../src/forge/render.js';
import { runView } from '../../src/forge/view.js';
import { sha256 } from '../../src/io/hash.js';
import { buildStatement } from '../../src/record/statement.js';
import { parseFitText } from '../../src/sim/fit-input.js';
import {
  baseConfig,
  CRITERIA,
  ensureBuilt,
  everyOutput,
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

/** A MODERATE with a concrete scenario: the scenario gate keeps it, so only sampling can demote it. */
const flaky = (extra: Record<string, unknown> = {}) =>
  raceFinding({ severity: 'MODERATE', line: 12, endLine: 12, claim: 'total may be stale here', ...extra });

async function sampledRun(
  samples: Record<string, unknown>,
  plan: Record<string, unknown[]>,
  refuter = false,
) {
  const r = await makeReviewRepo({
    config: (a) => baseConfig(a, { review: { samples }, ...(refuter ? { refuter: a } : {}) }),
  });
  repos.push(r);
  r.plan(plan as never);
  const p = await inProcess(r.dir);
  try {
    const { report } = await review(p, r.dir);
    return { report, counts: r.counts() };
  } finally {
    await p.close();
  }
}

describe('review.samples through the loop', () => {
  it('n 3, block 2: a MODERATE one sample raised is kept and shown, and does not block', async () => {
    const { report, counts } = await sampledRun(
      { n: 3, block: 2 },
      { reviewer: [{ sample: 0, reply: findings(flaky()) }, { reply: pass }] },
    );
    expect(counts.reviewer).toBe(3);
    expect(report.run.outcome).toBe('clear');
    expect(report.findings).toHaveLength(1);
    const [f] = report.findings;
    expect(f?.reproduction).toEqual({ seen: 1, of: 3 });
    expect(f?.gate).toEqual({ kind: 'demoted', rule: 'unreproduced', from: 'MODERATE', seen: 1, of: 3 });
    expect(f?.severity).toBe('MINOR');
    const review1 = stage(report.stages, 1, 'review');
    expect(review1?.verdicts.map((v) => v.sample)).toEqual([0, 1, 2]);
    // Three distinct calls, the first under the key it would have had unsampled.
    expect(new Set(review1?.verdicts.map((v) => v.callKey)).size).toBe(3);
    const out = everyOutput(report);
    for (const name of ['terminal', 'markdown', 'junit', 'rdjson'] as const)
      expect(out[name], name).toContain('seen in 1 of 3 samples');
    // The signed record's predicate carries it on the finding and in its round log.
    const predicate = buildStatement(report, { finalDiffDigest: 'sha256:x' }).predicate;
    expect(predicate.findings[0]?.reproduction).toEqual({ seen: 1, of: 3 });
    expect(predicate.rounds[0]?.findings[0]?.reproduction).toEqual({ seen: 1, of: 3 });
    // The round log (what `analyze` and the simulator's fit read) carries the count as data.
    expect(out.json).toContain('"demotedBy":"unreproduced"');
    expect(out.json).toContain('"reproduction":{"seen":1,"of":3}');
    // The Loop Lab's fit reads the exported round log's counts as they are written.
    const [fitted] = parseFitText('round-log.json', out.json ?? '');
    expect(fitted?.rounds[0]?.findings[0]).toMatchObject({
      demotedBy: 'unreproduced',
      reproduction: { seen: 1, of: 3 },
    });
  }, 120_000);

  it('a MODERATE two samples raised (worded apart, on overlapping lines) blocks, once, seen in 2 of 3', async () => {
    const { report } = await sampledRun(
      { n: 3, block: 2 },
      {
        reviewer: [
          { sample: 0, reply: findings(flaky()) },
          {
            sample: 2,
            reply: findings(flaky({ line: 11, endLine: 13, claim: 'the read of total is stale' })),
          },
          { reply: pass },
        ],
      },
    );
    expect(report.run.outcome).toBe('findings');
    expect(report.findings).toHaveLength(1);
    const [f] = report.findings;
    expect(f?.reproduction).toEqual({ seen: 2, of: 3 });
    expect(f?.reported.claim).toBe('total may be stale here');
    expect(f && isBlocker(f)).toBe(true);
    const body = summaryBody({
      view: runView(report),
      target: report.run.head,
      stale: false,
      record: null,
      check: { conclusion: 'failure', title: 'blockers' },
      inline: [],
      offDiff: runView(report).findings,
      dismissed: [],
      prior: [],
    });
    expect(body).toContain('seen in 2 of 3 samples');
  }, 120_000);

  it('a lone MAJOR is not demoted: it stays a blocker and goes to the refuter', async () => {
    const { report, counts } = await sampledRun(
      { n: 3, block: 2 },
      {
        reviewer: [{ sample: 0, reply: findings(raceFinding()) }, { reply: pass }],
        refuter: [{ reply: { decision: 'upheld', reason: 'the race is real' } }],
      },
      true,
    );
    expect(counts.refuter).toBe(1);
    const [f] = report.findings;
    expect(f?.reproduction).toEqual({ seen: 1, of: 3 });
    expect(f?.gate).toEqual({ kind: 'kept' });
    expect(report.run.outcome).toBe('findings');
  }, 120_000);

  it('invariant 1: a sample that fails is not a sample that missed: the run fails, it does not demote and clear', async () => {
    const { report } = await sampledRun(
      { n: 3, block: 2 },
      { reviewer: [{ sample: 0, reply: findings(flaky()) }, { exit: 9 }] },
    );
    // Two failed samples read as "not seen" would demote the MODERATE and end the run clear.
    expect(report.run.status).toBe('failed');
    expect(report.run.outcome).toBeNull();
    expect(report.run.reason).toBe('reviewer_failed');
  }, 120_000);

  it('on: blockers draws no other sample when the first passes', async () => {
    const { report, counts } = await sampledRun(
      { n: 3, block: 2, on: 'blockers' },
      { reviewer: [{ sample: 0, reply: findings(flaky({ severity: 'MINOR' })) }, { reply: pass }] },
    );
    expect(counts.reviewer).toBe(1);
    expect(report.run.outcome).toBe('clear');
    expect(stage(report.stages, 1, 'review')?.verdicts.map((v) => v.sample)).toEqual([0]);
    expect(report.findings[0]?.reproduction).toBeUndefined();
  }, 120_000);

  it('on: blockers draws the others when the first raised a blocker, and they decide it', async () => {
    const { report, counts } = await sampledRun(
      { n: 3, block: 2, on: 'blockers' },
      { reviewer: [{ sample: 0, reply: findings(flaky()) }, { reply: pass }] },
    );
    expect(counts.reviewer).toBe(3);
    expect(report.run.outcome).toBe('clear');
    expect(report.findings[0]?.reproduction).toEqual({ seen: 1, of: 3 });
    // Replay recomputes how many samples the rule wanted: a review that recorded fewer diverges.
    const stages = report.stages.map((row) => {
      const result = row.stage === 'review' ? (row.result as ReviewResult) : null;
      return result ? { ...row, result: { ...result, verdicts: result.verdicts.slice(0, 2) } } : row;
    });
    const replayed = replayRun({ ...report, stages } as RunReport, CRITERIA, sha256);
    expect(replayed.divergence).toMatchObject({
      stage: 'review',
      what: 'samples of correctness',
      recorded: 2,
      recomputed: 3,
    });
  }, 120_000);
});
