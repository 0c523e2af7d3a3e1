/**
 * What of a fixer's edit lands (issue 15, points 17 and 18), with real git,
 * real subprocess agents and the real SQLite ledger:
 * - the user saving a file in their own checkout while the fixer runs does
 *   not fail the run nor blame the fixer: the fix lands, the change is noted;
 * - a fixer edit inside a submodule cannot land: the fix round says so, by
 *   the submodule's path, and the round log and escalation report count it
 *   as no progress for that reason.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { FixResult } from '../../src/core/stage-results.js';
import { escalationJson, escalationMarkdown } from '../../src/loop/outputs/escalation.js';
import { renderRunSummary } from '../../src/report/terminal.js';
import {
  baseConfig,
  ensureBuilt,
  FIXED_FILE,
  findings,
  HEAD_FILE,
  inProcess,
  makeReviewRepo,
  pass,
  type ReviewRepo,
  raceFinding,
  reposRemovedAfterAll,
  review,
  runCli,
} from './helpers.js';

const repos = reposRemovedAfterAll();
beforeAll(() => ensureBuilt(), 120_000);

const fixOf = (report: { stages: { round: number; stage: string; result: unknown }[] }, round: number) =>
  report.stages.find((s) => s.stage === 'fix' && s.round === round)?.result as FixResult | undefined;

describe("the user's tree while the fixer runs (point 17)", () => {
  it('a save in the user checkout mid-fix: the fix lands, the run ends clear, the save is only noted', async () => {
    const r = await makeReviewRepo({ config: (a) => baseConfig(a, { fixer: a }) });
    repos.push(r);
    r.plan({
      reviewer: [{ round: 1, reply: findings(raceFinding()) }, { reply: pass }],
      // Long enough for the test to save a file while the fixer is in its call.
      fixer: [{ sleepMs: 1500, write: { 'src/calc.js': FIXED_FILE }, reply: { disputed: [] } }],
    });
    const mine = `${HEAD_FILE}// saved by the user mid-fix\n`;
    const p = await inProcess(r.dir);
    try {
      const running = review(p, r.dir);
      // The agent counts its call as soon as it starts: then the user saves.
      while (!r.counts().fixer) await new Promise((res) => setTimeout(res, 20));
      writeFileSync(join(r.dir, 'src/calc.js'), mine);
      const { report } = await running;
      expect(report.run, report.run.detail ?? '').toMatchObject({ status: 'completed', outcome: 'clear' });
      const fix = fixOf(report, 1);
      expect(fix?.commit).toEqual(expect.any(String));
      expect(fix?.userTreeChanged).toEqual(['src/calc.js']);
      expect(report.run.head).toBe(fix?.commit);
      // The user's save is theirs, untouched; the fix is on the run's ref.
      expect(readFileSync(join(r.dir, 'src/calc.js'), 'utf8')).toBe(mine);
      expect(r.repo.git(['show', `${fix?.commit}:src/calc.js`])).toBe(FIXED_FILE.replace(/\n$/, ''));
    } finally {
      await p.close();
    }
  });
});

/** A change that adds a submodule at vendor/lib (a gitlink; run checkouts leave it empty), and a fixer that edits inside it. */
async function fixerInSubmodule(): Promise<ReviewRepo> {
  const r = await makeReviewRepo({ config: (a) => baseConfig(a, { fixer: a }) });
  repos.push(r);
  r.repo.write('.gitmodules', '[submodule "lib"]\n\tpath = vendor/lib\n\turl = ./lib\n');
  r.repo.git(['update-index', '--add', '--cacheinfo', `160000,${r.base},vendor/lib`]);
  r.repo.git(['add', '.gitmodules']);
  r.repo.git(['commit', '-q', '-m', 'add a submodule']);
  r.plan({
    reviewer: [{ reply: findings(raceFinding()) }],
    fixer: [{ write: { 'vendor/lib/src/fix.c': 'int fixed = 1;\n' }, reply: { disputed: [] } }],
  });
  return r;
}

describe('a fixer edit inside a submodule (point 18)', () => {
  it('does not land, says so by the submodule path, and counts as no progress in the round log and escalation', async () => {
    const r = await fixerInSubmodule();
    const head = r.repo.git(['rev-parse', 'HEAD']);
    const p = await inProcess(r.dir);
    try {
      const { report } = await review(p, r.dir);
      expect(report.run).toMatchObject({
        status: 'completed',
        outcome: 'findings',
        stopReason: 'no_progress',
      });
      expect(report.run.head).toBe(head);
      const fix = fixOf(report, 1);
      expect(fix?.commit).toBeNull();
      expect(fix?.notLanded).toMatch(/inside submodule vendor\/lib \(vendor\/lib\/src\/fix\.c\)/);
      const e = escalationJson(report);
      expect(e.rounds.find((x) => x.round === 1)?.fix?.notLanded).toMatch(/vendor\/lib/);
      expect(e.decisions.find((d) => d.round === 2)).toMatchObject({
        progress: false,
        priorFixNotLanded: expect.stringMatching(/submodule vendor\/lib/),
      });
      const md = escalationMarkdown(report);
      expect(md).toMatch(/round 1's fix did not land: the fixer edited inside submodule vendor\/lib/);
      expect(md).toMatch(/The fix of this round did not land/);
    } finally {
      await p.close();
    }
  });
});

describe('a fix that did not land, where the user looks', () => {
  it('review, status, status --json, review --json and export --format rounds each say it of the round', async () => {
    const r = await fixerInSubmodule();
    const said = /the fix did not land: the fixer edited inside submodule vendor\/lib/;
    const rev = await runCli(['review', '--head', 'topic'], { cwd: r.dir });
    expect(rev.code, rev.stderr).toBe(1);
    expect(rev.stdout).toMatch(said);
    const runId = /revloop run (\S+):/.exec(rev.stdout)?.[1] ?? '';
    const st = await runCli(['status', runId], { cwd: r.dir });
    expect(st.stdout).toMatch(said);
    const round1 = (json: Record<string, unknown> | null) =>
      (json?.rounds as { round: number; fixNote?: string }[] | undefined)?.find((x) => x.round === 1);
    for (const args of [
      ['status', runId, '--json'],
      ['review', '--head', 'topic', '--json'],
      ['export', runId, '--format', 'rounds'],
    ]) {
      const res = await runCli(args, { cwd: r.dir });
      expect(res.json, `${args.join(' ')}: ${res.stderr}`).not.toBeNull();
      expect(round1(res.json)?.fixNote, args.join(' ')).toMatch(said);
    }
  });
});

describe("what the fixer leaves that its commit does not carry (the run's checkout, isolation)", () => {
  it("an ignored file it wrote never reaches the next round's reviewers, nor its checks", async () => {
    // A reviewer that notes, each round, which of the fixer's leftovers its checkout holds.
    const logDir = mkdtempSync(join(tmpdir(), 'revloop-probe-'));
    const seen = join(logDir, 'seen.log');
    const probe = {
      command: [
        process.execPath,
        '-e',
        `const fs = require('node:fs'), p = require('node:path');
         const there = ['build/out.txt', 'src/calc.js'].filter((f) => fs.existsSync(p.join(process.env.REVLOOP_REPO, f)));
         fs.appendFileSync(${JSON.stringify(seen)}, process.env.REVLOOP_ROUND + ':' + there.join(',') + '\\n');
         process.stdout.write(JSON.stringify({ verdict: 'pass', findings: [] }));`,
      ],
    };
    const r = await makeReviewRepo({
      config: (a) =>
        baseConfig(a, {
          reviewers: [
            { name: 'reviewer', ...a },
            { name: 'probe', ...probe },
          ],
          fixer: a,
          checks: [{ name: 'leftover', run: ['test', '!', '-e', 'build/out.txt'] }],
        }),
      ignoreState: false,
      files: { '.gitignore': '.revloop/\nbuild/\n' },
    });
    repos.push(r);
    r.plan({
      reviewer: [{ round: 1, reply: findings(raceFinding()) }, { reply: pass }],
      fixer: [
        {
          write: { 'src/calc.js': FIXED_FILE, 'build/out.txt': 'built by the fixer\n' },
          reply: { disputed: [] },
        },
      ],
    });
    const p = await inProcess(r.dir);
    try {
      const { report } = await review(p, r.dir);
      expect(report.run, report.run.detail ?? '').toMatchObject({ status: 'completed', outcome: 'clear' });
      const fix = fixOf(report, 1);
      expect(fix?.commit).toEqual(expect.any(String));
      // The commit carries the fix, not the ignored file; round 2's reviewers and checks never saw it.
      expect(r.repo.git(['ls-tree', '-r', '--name-only', fix?.commit ?? ''])).not.toContain('build/out.txt');
      expect(readFileSync(seen, 'utf8')).toBe('1:src/calc.js\n2:src/calc.js\n');
      const checks = report.stages.filter((s) => s.stage === 'checks' && s.round === 1);
      expect(checks.map((s) => (s.result as { results: { passed: boolean }[] }).results)).toEqual([
        [expect.objectContaining({ name: 'leftover', passed: true })],
      ]);
    } finally {
      await p.close();
      rmSync(logDir, { recursive: true, force: true });
    }
  });
});

describe('a fixer that made no edit says so in the round', () => {
  it('the terminal summary and the escalation report name the round whose fixer changed nothing', async () => {
    const r = await makeReviewRepo({
      config: (a) => baseConfig(a, { fixer: a, budgets: { rounds: 2, wallSeconds: 600, costUsd: 5 } }),
    });
    repos.push(r);
    r.plan({ reviewer: [{ reply: findings(raceFinding()) }], fixer: [{ reply: { disputed: [] } }] });
    const p = await inProcess(r.dir);
    try {
      const { report } = await review(p, r.dir);
      expect(report.run).toMatchObject({ status: 'completed', outcome: 'findings', stopReason: 'budget' });
      const summary = renderRunSummary(report).split('\n');
      const round1 = summary.findIndex((l) => l.startsWith('  round 1'));
      const round2 = summary.findIndex((l) => l.startsWith('  round 2'));
      expect(summary.slice(round1, round2).join('\n')).toContain('    the fixer made no edit');
      expect(escalationMarkdown(report)).toContain('The fixer made no edit in this round.');
    } finally {
      await p.close();
    }
  });
});
