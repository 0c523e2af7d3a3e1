/** Hand-built RunReport values for report and record tests. */
import type { AttemptRow, FindingRow, RunRow } from '../../src/core/ledger.js';
import type { RunReport } from '../../src/core/run-report.js';
import type { VerdictRow } from '../../src/core/stage-results.js';
import type { ReportedFinding, Snapshot } from '../../src/core/types.js';

export const SHA = {
  base: 'b'.repeat(40),
  head: 'c'.repeat(40),
  fix: 'd'.repeat(40),
  mergeBase: 'b'.repeat(40),
};

export function snapshot(over: Partial<Snapshot> = {}): Snapshot {
  return {
    repo: 'https://example.invalid/acme/widgets.git',
    change: 'pr-42',
    base: SHA.base,
    head: SHA.head,
    headRef: 'refs/heads/feature',
    configFrom: 'base',
    settlementsDigest: '0'.repeat(64),
    mergeBase: SHA.mergeBase,
    diffDigest: 'e'.repeat(64),
    criteriaPath: 'REVIEW.md',
    criteriaDigest: 'f'.repeat(64),
    configDigest: 'a'.repeat(64),
    reviewers: [
      { name: 'correctness', adapter: 'command', model: 'model-a', promptTemplateDigest: '1'.repeat(64) },
      { name: 'standards', adapter: 'openai', model: 'model-b', promptTemplateDigest: '2'.repeat(64) },
    ],
    refuter: { name: 'refuter', adapter: 'command', promptTemplateDigest: '3'.repeat(64) },
    fixer: { name: 'fixer', adapter: 'command', promptTemplateDigest: '4'.repeat(64) },
    checks: [],
    protectedPaths: ['revloop.config.yaml', 'REVIEW.md'],
    configPath: 'revloop.config.yaml',
    callSeconds: 300,
    retry: { attempts: 3, baseDelayMs: 500, maxDelayMs: 30_000 },
    policy: { requireScenario: true, scopeLock: true, stopWindow: 2, shrinkRatio: 0.2 },
    budgets: { rounds: 5, wallSeconds: 1800, costUsd: 5 },
    controllerVersion: '0.1.0',
    ...over,
  };
}

export function run(over: Partial<RunRow> = {}, snap: Partial<Snapshot> = {}): RunRow {
  return {
    id: 'run-0001',
    admissionKey: 'k'.repeat(64),
    changeKey: 'pr-42',
    repo: 'widgets',
    snapshotKey: 's'.repeat(64),
    snapshot: snapshot(snap),
    status: 'completed',
    outcome: 'findings',
    stopReason: 'budget',
    reason: null,
    detail: null,
    rerun: null,
    head: SHA.fix,
    roundsDone: 2,
    costUsd: 0.42,
    fencingToken: 1,
    leaseOwner: null,
    leaseExpiresAt: null,
    recordPath: null,
    createdAt: Date.UTC(2026, 0, 2, 3, 4, 5),
    updatedAt: Date.UTC(2026, 0, 2, 3, 9, 0),
    endedAt: Date.UTC(2026, 0, 2, 3, 9, 0),
    ...over,
  };
}

let n = 0;
export function finding(
  round: number,
  reviewer: string,
  reported: Partial<ReportedFinding>,
  over: Partial<FindingRow> = {},
): FindingRow {
  const r: ReportedFinding = {
    severity: 'MAJOR',
    file: 'src/a.ts',
    line: 10,
    claim: 'lost update',
    failureScenario: 'two writers race',
    ...reported,
  };
  n++;
  return {
    id: `f${round}-${reviewer}-${n}`,
    runId: 'run-0001',
    round,
    reviewer,
    revision: round === 1 ? SHA.head : SHA.fix,
    callKey: `call-${round}-${reviewer}`,
    index: n,
    reported: r,
    severity: r.severity,
    gate: { kind: 'kept' },
    refutation: null,
    dispute: null,
    settlement: null,
    ...over,
  };
}

/** A review verdict of one reviewer in one round (the call answered). */
export function verdict(round: number, reviewer: string): VerdictRow {
  return {
    callKey: `call-${round}-${reviewer}`,
    runId: 'run-0001',
    round,
    stage: 'review',
    role: 'reviewer',
    reviewer,
    revision: round === 1 ? SHA.head : SHA.fix,
    promptDigest: '9'.repeat(64),
    modelId: null,
    reply: { verdict: 'pass', findings: [] },
    costUsd: 0,
    recordedAt: round,
  };
}

/** A review attempt; `class` other than ok with no verdict is a missing result. */
export function attempt(round: number, reviewer: string, over: Partial<AttemptRow> = {}): AttemptRow {
  return {
    runId: 'run-0001',
    callKey: `call-${round}-${reviewer}`,
    attemptNo: 1,
    round,
    stage: 'review',
    role: 'reviewer',
    reviewer,
    class: 'ok',
    confined: false,
    detail: null,
    startedAt: round,
    endedAt: round,
    ...over,
  };
}

/** Two rounds; the last carries one blocker of each blocking severity and every kind of non-blocker. */
export function sampleReport(over: Partial<RunRow> = {}, snap: Partial<Snapshot> = {}): RunReport {
  const findings: FindingRow[] = [
    finding(1, 'correctness', { claim: 'off by one in loop', line: 3 }),
    finding(2, 'correctness', { claim: 'Lost update: counter is read, then written', line: 10, endLine: 12 }),
    finding(2, 'standards', {
      severity: 'MODERATE',
      file: 'src/b c.ts',
      claim: 'missing error, handling: 100%',
      line: 7,
    }),
    finding(2, 'standards', { severity: 'MINOR', claim: 'naming', line: 1, failureScenario: undefined }),
    finding(
      2,
      'correctness',
      { claim: 'SQL injection <script>&', line: 20, failureScenario: undefined },
      { severity: 'MINOR', gate: { kind: 'demoted', rule: 'no_scenario', from: 'MAJOR' } },
    ),
    finding(
      2,
      'standards',
      { claim: 'race in cache', line: 30 },
      { refutation: { decision: 'refuted', by: 'refuter', reason: 'cache is per-request', callKey: 'x' } },
    ),
    finding(
      2,
      'correctness',
      { claim: 'null deref', line: 40 },
      { settlement: { by: 'alice', decision: 'overturned', note: 'checked upstream', at: 1 } },
    ),
  ];
  return {
    run: run(over, snap),
    rounds: [
      { runId: 'run-0001', round: 1, head: SHA.head, startedAt: 1 },
      { runId: 'run-0001', round: 2, head: SHA.fix, startedAt: 2 },
    ],
    stages: [],
    findings,
    // Both reviewers answered both rounds.
    verdicts: [1, 2].flatMap((r) => [verdict(r, 'correctness'), verdict(r, 'standards')]),
    attempts: [1, 2].flatMap((r) => [attempt(r, 'correctness'), attempt(r, 'standards')]),
  };
}

/** A run whose second reviewer crashed in round 1 (no verdict), the first having passed: failed `reviewer_failed`. */
export function crashedReviewerReport(): RunReport {
  const r = sampleReport({
    status: 'failed',
    outcome: null,
    stopReason: null,
    reason: 'reviewer_failed',
    detail: 'reviewer standards: exited with code 1: boom',
    roundsDone: 0,
  });
  r.rounds = r.rounds.filter((x) => x.round === 1);
  r.findings = [];
  r.verdicts = [verdict(1, 'correctness')];
  r.attempts = [
    attempt(1, 'correctness'),
    attempt(1, 'standards', { class: 'failed', detail: 'exited with code 1: boom\nat line 2' }),
  ];
  return r;
}
