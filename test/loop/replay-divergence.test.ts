/**
 * Invariant 6 from the other side: replay must notice when the recorded
 * decisions do not follow from the recorded facts. One real run (a blocker
 * upheld, fixed, then a clean round), then each recorded decision altered in
 * a copy of its report: replay names the first place it differs, and
 * `revloop replay` exits 1 on a ledger altered the same way.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replayRun } from '../../src/core/replay.js';
import type { RunReport } from '../../src/core/run-report.js';
import { isStageRow } from '../../src/core/stage-results.js';
import { sha256 } from '../../src/io/hash.js';
import {
  baseConfig,
  CRITERIA,
  ensureBuilt,
  FIXED_FILE,
  findings,
  inProcess,
  makeReviewRepo,
  pass,
  type ReviewRepo,
  raceFinding,
  review,
  runCli,
  testEnv,
} from './helpers.js';

let r: ReviewRepo;
let report: RunReport;

beforeAll(async () => {
  ensureBuilt();
  r = await makeReviewRepo({ config: (a) => baseConfig(a, { refuter: a, fixer: a }) });
  r.plan({
    reviewer: [{ round: 1, reply: findings(raceFinding()) }, { reply: pass }],
    refuter: [{ reply: { decision: 'upheld', reason: 'the await splits the read from the write' } }],
    fixer: [{ write: { 'src/calc.js': FIXED_FILE }, reply: { disputed: [] } }],
  });
  const p = await inProcess(r.dir);
  try {
    report = (await review(p, r.dir)).report;
  } finally {
    await p.close();
  }
}, 300_000);
afterAll(async () => r?.cleanup());

/** Replays a copy of the run's report after `alter` changed it. */
function replayAltered(alter: (copy: RunReport) => void) {
  const copy = structuredClone(report);
  alter(copy);
  return replayRun(copy, CRITERIA, sha256);
}

function stageResult<S extends 'review' | 'refute' | 'decide'>(copy: RunReport, round: number, s: S) {
  const row = copy.stages.find((x) => x.round === round && x.stage === s);
  if (!row || !isStageRow(row, s)) throw new Error(`no ${s} stage in round ${round}`);
  return row.result;
}

describe('replay notices a recorded decision that does not follow from the facts (invariant 6)', () => {
  it('the unaltered run replays identical, over two rounds and the upheld blocker', () => {
    expect(report.run).toMatchObject({ status: 'completed', outcome: 'clear' });
    const res = replayRun(report, CRITERIA, sha256);
    expect(res).toMatchObject({ identical: true, rounds: 2, decisionsChecked: 2, divergence: null });
    expect(res.findingsChecked).toBe(1);
  });

  it('a finding gated otherwise than the gates decide: review, gating', () => {
    const res = replayAltered((c) => {
      const f = c.findings[0];
      if (f) f.severity = 'MINOR';
    });
    expect(res.identical).toBe(false);
    expect(res.divergence).toMatchObject({ round: 1, stage: 'review', recomputed: { severity: 'MAJOR' } });
    expect(res.divergence?.what).toMatch(/^gating of finding /);
  });

  it("a reviewer's verdict gone from the ledger: review, verdict missing", () => {
    const res = replayAltered((c) => {
      const key = stageResult(c, 1, 'review').verdicts[0]?.callKey;
      c.verdicts = c.verdicts.filter((v) => v.callKey !== key);
    });
    expect(res.divergence).toMatchObject({ round: 1, stage: 'review' });
    expect(res.divergence?.what).toMatch(/^verdict .* missing$/);
  });

  it('a refutation recorded against what the refuter replied: refute', () => {
    const res = replayAltered((c) => {
      const f = c.findings[0];
      if (f?.refutation) f.refutation.decision = 'refuted';
    });
    expect(res.divergence).toMatchObject({
      round: 1,
      stage: 'refute',
      recorded: 'refuted',
      recomputed: 'upheld',
    });
  });

  it('open blockers recorded as none: decide, open blockers', () => {
    const res = replayAltered((c) => {
      stageResult(c, 1, 'decide').openBlockers = [];
    });
    expect(res.divergence).toMatchObject({ round: 1, stage: 'decide', what: 'open blockers', recorded: [] });
  });

  it('a decision to stop where the facts say fix: decide, decision', () => {
    const res = replayAltered((c) => {
      const d = stageResult(c, 1, 'decide');
      d.decision = { kind: 'stop', outcome: 'clear', stopReason: 'clear' };
    });
    expect(res.divergence).toMatchObject({ round: 1, stage: 'decide', what: 'decision' });
    expect(res.divergence?.recomputed).toMatchObject({ kind: 'fix' });
  });

  it("the run's outcome recorded otherwise than its last decision: end, outcome", () => {
    const res = replayAltered((c) => {
      c.run.outcome = 'findings';
    });
    expect(res.divergence).toMatchObject({
      round: 2,
      stage: 'end',
      what: 'outcome',
      recorded: { outcome: 'findings' },
      recomputed: { outcome: 'clear', stopReason: 'clear' },
    });
  });

  it('`revloop replay` on a ledger whose finding was altered: DIVERGED, exit 1', async () => {
    const run = report.run.id;
    const before = await runCli(['replay', run], { cwd: r.dir, env: testEnv() });
    expect(before.code, before.stderr).toBe(0);
    expect(before.stdout).toContain(
      `replay ${run}: identical (2 rounds, 1 findings, 2 decisions recomputed)`,
    );
    const db = new Database(join(r.dir, '.revloop', 'ledger.db'));
    try {
      expect(db.prepare("UPDATE findings SET severity = 'MINOR' WHERE run_id = ?").run(run).changes).toBe(1);
    } finally {
      db.close();
    }
    const after = await runCli(['replay', run], { cwd: r.dir, env: testEnv() });
    expect(after.code, after.stderr).toBe(1);
    expect(after.stdout).toMatch(
      new RegExp(`^replay ${run}: DIVERGED at round 1 review: gating of finding `),
    );
    expect(after.stdout).toContain('"severity":"MINOR"');
  });
});
