/**
 * A failing check never ends clear, at the base too: the change's first
 * revision breaks a configured check that passed at the commit the change
 * starts from; the reviewer passes. The run must not end clear, and every
 * output names the check. The base is checked once per run, only for the
 * checks that fail on the change as admitted, and recorded: replay and a
 * resumed run read it, never run it again. Real git, real subprocess agents,
 * real check commands, a real SQLite ledger; the kill is a real SIGKILL.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunReport } from '../../src/core/run-report.js';
import type { ChecksResult } from '../../src/core/stage-results.js';
import { probeBwrap } from '../../src/io/confine.js';
import {
  baseConfig,
  ensureBuilt,
  everyOutput,
  HEAD_FILE,
  inProcess,
  makeReviewRepo,
  pass,
  type ReviewRepo,
  replayedReportIn,
  reposRemovedAfterAll,
  review,
  runCli,
  testEnv,
} from './helpers.js';

const repos = reposRemovedAfterAll();
const logs = mkdtempSync(join(tmpdir(), 'revloop-base-check-'));
afterAll(() => rmSync(logs, { recursive: true, force: true }));
beforeAll(() => ensureBuilt(), 600_000);

/** A check that passes while flag.txt says `ok`, and notes each run of it in $CHECK_LOG. */
const FLAG_CHECK = {
  name: 'flag',
  run: ['sh', '-c', 'echo run >> "$CHECK_LOG"; grep -qx ok flag.txt'],
  env: ['CHECK_LOG'],
};
const CLAIM = 'The check flag fails at';

let logCount = 0;
function newLog(): { path: string; runs: () => number } {
  const path = join(logs, `checks-${++logCount}.log`);
  writeFileSync(path, '');
  return { path, runs: () => readFileSync(path, 'utf8').split('\n').filter(Boolean).length };
}

/** Base: flag.txt `atBase`; the change edits src/calc.js and sets it to `onChange`. A fixer is configured. */
async function flagRepo(atBase: string, onChange: string): Promise<ReviewRepo> {
  const r = await makeReviewRepo({
    config: (a) => baseConfig(a, { fixer: a, checks: [FLAG_CHECK] }),
    files: { 'flag.txt': `${atBase}\n` },
    change: { 'src/calc.js': HEAD_FILE, 'flag.txt': `${onChange}\n` },
  });
  repos.push(r);
  // The reviewer says clear every time; the fixer is never to be called.
  r.plan({ reviewer: [{ reply: pass }], fixer: [{ exit: 9 }] });
  return r;
}

/** One review in this process, its checks noting their runs in a log of their own. */
async function reviewLogged(
  r: ReviewRepo,
): Promise<{ report: RunReport; checkRuns: number; stages: string[] }> {
  const log = newLog();
  const stages: string[] = [];
  const p = await inProcess(r.dir, {
    env: testEnv({ CHECK_LOG: log.path }),
    tweak: (d) => ({ ...d, onEvent: (e) => e.kind === 'stage' && stages.push(`${e.round}:${e.stage}`) }),
  });
  try {
    const { report } = await review(p, r.dir);
    return { report, checkRuns: log.runs(), stages };
  } finally {
    await p.close();
  }
}

const round0 = (stages: { stage: string; round: number; result: unknown }[]) =>
  stages.find((s) => s.stage === 'checks' && s.round === 0)?.result as ChecksResult | undefined;

describe('a check that passed at the base and fails on the change is a blocker', () => {
  it('the first revision breaks it, the reviewer passes: not clear, every output names the check', async () => {
    const r = await flagRepo('ok', 'broken');
    const { report, checkRuns, stages } = await reviewLogged(r);
    expect(report.run).toMatchObject({
      status: 'completed',
      outcome: 'findings',
      stopReason: 'awaiting_settlement',
    });
    // Checked once at the change, once at its base (the live line says so): recorded with round 0.
    expect(checkRuns).toBe(2);
    expect(stages.slice(0, 3)).toEqual(['0:checks', '0:checks at base', '1:review']);
    const checks = round0(report.stages);
    expect(checks?.results.map((c) => c.passed)).toEqual([false]);
    expect(checks?.base?.commit).toBe(r.base);
    expect(checks?.base?.results.map((c) => [c.name, c.passed])).toEqual([['flag', true]]);
    const blockers = report.findings.filter((f) => f.reviewer === 'revloop');
    expect(blockers).toHaveLength(1);
    expect(blockers[0]).toMatchObject({ round: 1, revision: r.head, severity: 'MAJOR' });
    expect(blockers[0]?.reported.claim).toBe(
      `${CLAIM} ${r.head.slice(0, 12)} (it exits 1); it passed at the base ${r.base.slice(0, 12)}.`,
    );
    expect(r.counts().fixer).toBeUndefined();
    for (const [name, text] of Object.entries(everyOutput(report))) expect(text, name).toContain(CLAIM);
  });

  it('failing at the base too is not the change’s doing: the run ends clear as before', async () => {
    const { report } = await reviewLogged(await flagRepo('stale', 'stale too'));
    expect(report.run).toMatchObject({ status: 'completed', outcome: 'clear' });
    expect(round0(report.stages)?.base?.results.map((c) => c.passed)).toEqual([false]);
    expect(report.findings.filter((f) => f.reviewer === 'revloop')).toEqual([]);
  });

  it('passing on the change: the base is not checked at all', async () => {
    const { report, checkRuns } = await reviewLogged(await flagRepo('stale', 'ok'));
    expect(report.run).toMatchObject({ status: 'completed', outcome: 'clear' });
    expect(checkRuns).toBe(1);
    expect(round0(report.stages)?.base).toBeUndefined();
  });

  it('the base is where the change starts (its merge base), not a main that moved on and repaired the check', async () => {
    const r = await flagRepo('stale', 'stale');
    r.repo.git(['checkout', '-q', 'main']);
    r.repo.write('flag.txt', 'ok\n');
    const mainTip = r.repo.commit('main repairs the flag');
    r.repo.git(['checkout', '-q', r.branch]);
    const { report } = await reviewLogged(r);
    expect(report.run.snapshot.base).toBe(mainTip);
    expect(round0(report.stages)?.base).toMatchObject({ commit: r.base, results: [{ passed: false }] });
    expect(report.run).toMatchObject({ status: 'completed', outcome: 'clear' });
  });
});

describe('the base check is a recorded fact of the run', () => {
  const cli = (r: ReviewRepo, log: string, extra: NodeJS.ProcessEnv = {}) =>
    runCli(['review', '--head', r.branch, '--json'], {
      cwd: r.dir,
      env: testEnv({ CHECK_LOG: log, ...extra }),
    });

  it('replay gives the same verdict without running any check', async () => {
    const r = await flagRepo('ok', 'broken');
    const log = newLog();
    const res = await cli(r, log.path);
    expect(res.code).toBe(1);
    expect(res.stdout).toContain(CLAIM); // `review --json` names it too
    const runId = String(res.json?.runId);
    expect(log.runs()).toBe(2);
    const replay = await runCli(['replay', runId, '--json'], {
      cwd: r.dir,
      env: testEnv({ CHECK_LOG: log.path }),
    });
    expect(replay.code).toBe(0);
    expect(replay.json).toMatchObject({ identical: true });
    expect(log.runs()).toBe(2);
  });

  it.each([
    // Killed after the base ran, before round 0 was recorded: the stage runs again, whole.
    ['before-complete:checks', 4],
    // Killed after round 0 was recorded: the resumed run reads the base's result.
    ['before:review', 2],
  ])('SIGKILL at %s, resumed: the same blocker, and the checks ran %i times in all', async (at, runs) => {
    const r = await flagRepo('ok', 'broken');
    const log = newLog();
    const killed = await cli(r, log.path, { REVLOOP_CRASH_AT: at });
    expect(killed.code).toBe(-1);
    expect(log.runs()).toBe(2);
    const resumed = await cli(r, log.path);
    expect(resumed.code).toBe(1);
    const runId = String(resumed.json?.runId);
    const report = await replayedReportIn(r, runId);
    expect(report.run).toMatchObject({ status: 'completed', outcome: 'findings' });
    expect(report.stages.filter((s) => s.stage === 'checks' && s.round === 0)).toHaveLength(1);
    expect(round0(report.stages)?.base?.results.map((c) => c.passed)).toEqual([true]);
    const blockers = report.findings.filter((f) => f.reviewer === 'revloop');
    expect(blockers.map((f) => f.reported.claim.slice(0, CLAIM.length))).toEqual([CLAIM]);
    expect(log.runs()).toBe(runs);
  });
});

const bwrapWorks = probeBwrap('/usr/bin/bwrap') === null;

describe.skipIf(!bwrapWorks)('confined', () => {
  it('the base check runs confined like the others; the record says every process was', async () => {
    // A reviewer that needs nothing outside its checkout (a confined process sees an empty /tmp).
    const reviewer = {
      command: ['node', '-e', `process.stdout.write(${JSON.stringify(JSON.stringify(pass))})`],
    };
    const r = await makeReviewRepo({
      config: baseConfig(reviewer, { checks: [{ name: 'flag', run: ['sh', '-c', 'grep -qx ok flag.txt'] }] }),
      files: { 'flag.txt': 'ok\n' },
      change: { 'src/calc.js': HEAD_FILE, 'flag.txt': 'broken\n' },
    });
    repos.push(r);
    const res = await runCli(['review', '--head', r.branch, '--json'], {
      cwd: r.dir,
      env: testEnv({ REVLOOP_CONFINE: 'require' }),
    });
    expect(res.code, res.stderr).toBe(1);
    const report = await replayedReportIn(r, String(res.json?.runId));
    const base = round0(report.stages)?.base;
    expect(base?.results).toMatchObject([{ name: 'flag', passed: true, confined: true }]);
    expect(report.findings.filter((f) => f.reviewer === 'revloop')).toHaveLength(1);
    const record = JSON.parse(readFileSync(String(res.json?.record), 'utf8')) as { payload: string };
    const statement = JSON.parse(Buffer.from(record.payload, 'base64').toString('utf8'));
    expect(statement.predicate.confined).toBe(true);
  });
});
