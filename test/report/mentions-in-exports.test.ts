/**
 * What a reviewer writes stays text in every export a forge or CI page
 * renders: `@org/team` and `@user` ping nobody, `#12` links nothing, and the
 * Markdown summary's fences all close. The round log, revloop's own data,
 * keeps the exact strings. Real CLI, real repository, a real command reviewer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXPORT_FORMATS } from '../../src/report/formats.js';
import { openFenceAt } from '../helpers/markdown-fences.js';
import {
  baseConfig,
  ensureBuilt,
  findings,
  makeReviewRepo,
  type ReviewRepo,
  raceFinding,
  runCli,
} from '../loop/helpers.js';

const CLAIM = 'deposit loses updates: cc @org/team, @octocat; closes #12';
const LIVE = ['@org/team', '@octocat', '#12'];

let r: ReviewRepo;
let runId = '';
beforeAll(async () => {
  ensureBuilt();
  r = await makeReviewRepo({ config: (a) => baseConfig(a) });
  r.plan({
    reviewer: [
      {
        reply: findings(
          raceFinding({
            claim: CLAIM,
            failureScenario: 'two deposits race; @org/team owns it',
            violatedClause: 'see #12',
          }),
        ),
      },
    ],
  });
  const reviewed = await runCli(['review', '--head', 'topic'], { cwd: r.dir });
  runId = /revloop run (\S+):/.exec(reviewed.stdout)?.[1] ?? '';
  expect(runId, reviewed.stderr + reviewed.stdout).not.toBe('');
}, 120_000);
afterAll(async () => {
  await r?.cleanup();
});

describe('mentions in what a reviewer wrote are inert in every rendered export', () => {
  it.each(EXPORT_FORMATS.filter((f) => f !== 'rounds'))('export --format %s', async (format) => {
    const out = await runCli(['export', runId, '--format', format], { cwd: r.dir });
    expect(out.code, out.stderr).toBe(0);
    for (const live of LIVE) expect(out.stdout, `${format} pings or links ${live}`).not.toContain(live);
    if (format === 'markdown' || format === 'escalation') expect(openFenceAt(out.stdout)).toBeNull();
  });

  it('the round log keeps the exact strings', async () => {
    const rounds = await runCli(['export', runId, '--format', 'rounds'], { cwd: r.dir });
    const claims = (rounds.json as { rounds: { findings: { claim: string }[] }[] }).rounds[0]?.findings.map(
      (f) => f.claim,
    );
    expect(claims).toContain(CLAIM);
  });
});
