/**
 * A fixer that commits its edit, as agent CLIs often do (a real subprocess
 * running real git in its checkout): commits on top of the revision are its
 * edit, committed again by the controller under its own name and message;
 * history it rewrote (an amend, a reset), a submodule or a link out of the
 * repository fail the fix with the reason, and nothing lands.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import {
  baseConfig,
  ensureBuilt,
  FIXED_FILE,
  findings,
  inProcess,
  makeReviewRepo,
  type Plan,
  pass,
  raceFinding,
  reposRemovedAfterAll,
  review,
} from './helpers.js';

const repos = reposRemovedAfterAll();
beforeAll(() => ensureBuilt(), 600_000);

async function runWith(fixer: NonNullable<Plan['fixer']>) {
  const r = await makeReviewRepo({ config: (a) => baseConfig(a, { fixer: a }) });
  repos.push(r);
  r.plan({
    reviewer: [{ round: 1, reply: findings(raceFinding()) }, { reply: pass }],
    fixer,
  });
  const p = await inProcess(r.dir);
  try {
    const { report } = await review(p, r.dir);
    return { r, report };
  } finally {
    await p.close();
  }
}

const fixFile = { 'src/calc.js': FIXED_FILE };

describe('commits the fixer made on top of the revision land as the controller’s fix', () => {
  it.each([
    ['commits once', 'commitWrites', ['src/calc.js']],
    ['commits twice', 'commitTwice', ['second-commit.txt', 'src/calc.js']],
  ] as const)('%s', async (_name, action, files) => {
    const { r, report } = await runWith([{ actions: [action], write: fixFile, reply: { disputed: [] } }]);
    expect(report.run).toMatchObject({ status: 'completed', outcome: 'clear' });
    const fix = report.stages.find((s) => s.stage === 'fix')?.result as { commit: string };
    expect(report.run.head).toBe(fix.commit);
    // One commit on the revision, the controller's name and message: nothing of the fixer's
    // commits (author, message, parents) survives, only their tree.
    expect(r.repo.git(['log', '-1', '--format=%P|%an <%ae>|%cn|%s', fix.commit])).toBe(
      `${r.head}|revloop <revloop@localhost>|revloop|revloop: fix round 1 of run ${report.run.id}`,
    );
    expect(r.repo.git(['diff', '--name-only', r.head, fix.commit]).split('\n')).toEqual(files);
    expect(r.repo.git(['rev-parse', `refs/revloop/runs/${report.run.id}`])).toBe(fix.commit);
    expect(r.repo.git(['rev-parse', 'topic'])).toBe(r.head);
  });
});

describe('what a fixer commit cannot bring in fails the fix, recorded with its reason', () => {
  it.each([
    ['amends the revision', 'amend', /rewrote history.*not a descendant of the revision.*amend/],
    ['resets to an older commit', 'resetBack', /rewrote history.*not a descendant of the revision/],
    [
      'commits a link out of the repository',
      'commitSymlinkOut',
      /escape a symbolic link out of the repository/,
    ],
    ['commits a submodule', 'commitGitlink', /adds submodule vendored/],
    // The same rule whether the fixer commits or not.
    ['leaves a link out of the repository uncommitted', 'symlinkOut', /escape a symbolic link out/],
  ] as const)('%s', async (_name, action, detail) => {
    const { r, report } = await runWith([{ actions: [action], write: fixFile, reply: { disputed: [] } }]);
    expect(report.run).toMatchObject({ status: 'failed', outcome: null, reason: 'fixer_failed' });
    expect(report.run.detail).toMatch(detail);
    expect(report.run.head).toBe(r.head);
    expect(report.stages.map((s) => s.stage)).toEqual(['review', 'refute', 'decide']);
    // The round's log holds the fixer's one failed attempt and why.
    const fixer = report.attempts.filter((a) => a.role === 'fixer');
    expect(fixer.map((a) => [a.round, a.class])).toEqual([[1, 'failed']]);
    expect(fixer[0]?.detail).toMatch(detail);
    expect(() =>
      r.repo.git(['rev-parse', '--verify', '--quiet', `refs/revloop/runs/${report.run.id}`]),
    ).toThrow();
    expect(r.repo.git(['rev-parse', 'topic'])).toBe(r.head);
  });
});
