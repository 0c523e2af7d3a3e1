/**
 * `review --rerun --reason TEXT`: a revision reviewed again on purpose (a
 * flaky reviewer) is a new run, recorded with who asked and why, shown by
 * status, export and the signed record; plain `review` then answers with it,
 * idempotently. Real processes, a real git repository, a real SQLite ledger.
 */
import { readFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  baseConfig,
  ensureBuilt,
  findings,
  makeReviewRepo,
  pass,
  raceFinding,
  reposRemovedAfterAll,
  runCli,
  testEnv,
} from '../loop/helpers.js';

const repos = reposRemovedAfterAll();
beforeAll(() => ensureBuilt(), 600_000);

const asOcto = testEnv({ GITHUB_ACTOR: 'octo', GITLAB_USER_LOGIN: '' });
const asOsUser = testEnv({ GITHUB_ACTOR: '', GITLAB_USER_LOGIN: '' });

async function reviewedOnce() {
  const r = await makeReviewRepo({ config: (a) => baseConfig(a) });
  repos.push(r);
  // The first review raises a finding (a flaky reviewer, say); every later one passes.
  r.plan({ reviewer: [{ call: 1, reply: findings(raceFinding()) }, { reply: pass }] });
  const first = await runCli(['review', '--head', 'topic', '--json'], { cwd: r.dir, env: asOcto });
  expect(first.code).toBe(1);
  return { r, first: first.json as { runId: string } };
}

describe('review --rerun --reason', () => {
  it('admits a new run of the same revision, recorded with who asked and why; plain review then answers it', async () => {
    const { r, first } = await reviewedOnce();
    const cli = (args: string[], env = asOcto) => runCli(args, { cwd: r.dir, env });

    // Plain review keeps today's answer.
    const same = await cli(['review', '--head', 'topic', '--json']);
    expect(same.code).toBe(1);
    expect(same.json).toMatchObject({ runId: first.runId, admitted: 'existing', rerun: null });

    const re = await cli([
      'review',
      '--head',
      'topic',
      '--rerun',
      '--reason',
      'the reviewer  was\nflaky',
      '--json',
    ]);
    expect(re.code).toBe(0);
    const rerun = { ordinal: 1, by: 'octo (GITHUB_ACTOR)', reason: 'the reviewer was flaky' };
    expect(re.json).toMatchObject({ admitted: 'created', status: 'completed', outcome: 'clear', rerun });
    const id = (re.json as { runId: string }).runId;
    expect(id).not.toBe(first.runId);

    // The newest run answers from now on, idempotently.
    for (let i = 0; i < 2; i++) {
      const after = await cli(['review', '--head', 'topic', '--json']);
      expect(after.code).toBe(0);
      expect(after.json).toMatchObject({ runId: id, admitted: 'existing', outcome: 'clear', rerun });
    }

    const record = JSON.parse(readFileSync((re.json as { record: string }).record, 'utf8')) as {
      payload: string;
    };
    const statement = JSON.parse(Buffer.from(record.payload, 'base64').toString('utf8'));
    expect(statement.predicate.rerun).toEqual(rerun);
    expect((await cli(['verify', (re.json as { record: string }).record, '--repo', '.'])).code).toBe(0);

    const listed = await cli(['status', '--json']);
    const runs = (listed.json as { runs: { runId: string; rerun: unknown }[] }).runs;
    expect(runs.find((x) => x.runId === id)?.rerun).toEqual(rerun);
    expect(runs.find((x) => x.runId === first.runId)?.rerun).toBeNull();
    const phrase = 'rerun 1 of this revision, asked by octo (GITHUB_ACTOR): the reviewer was flaky';
    expect((await cli(['status'])).stdout).toContain(`run ${id}: ${phrase}`);
    expect((await cli(['status', id])).stdout).toContain(phrase);
    // Markdown escapes the requester's brackets and underscores.
    expect((await cli(['export', id, '--format', 'markdown'])).stdout).toMatch(
      /\| rerun \| rerun 1 of this revision, asked by octo .*GITHUB.*ACTOR.*: the reviewer was flaky \|/,
    );
    expect(JSON.parse((await cli(['export', id, '--format', 'rounds'])).stdout).rerun).toEqual(rerun);

    // enqueue --rerun: the next rerun, asked by the OS user here; asked again while it waits, it is the same one.
    const queued = await cli(
      ['enqueue', '--head', 'topic', '--rerun', '--reason', 'new model', '--json'],
      asOsUser,
    );
    expect(queued.code).toBe(0);
    expect(queued.json).toMatchObject({
      admitted: 'created',
      status: 'queued',
      rerun: { ordinal: 2, by: `${userInfo().username} (OS user)`, reason: 'new model' },
    });
    const joined = await cli(['enqueue', '--head', 'topic', '--rerun', '--reason', 'again', '--json']);
    expect(joined.json).toMatchObject({
      admitted: 'existing',
      runId: (queued.json as { runId: string }).runId,
    });
  }, 120_000);

  it.each([
    [['--rerun'], /--rerun needs --reason TEXT/],
    [['--rerun', '--reason', '   '], /--rerun needs --reason TEXT/],
    [['--reason', 'why'], /--reason goes with --rerun/],
  ])(
    '%j is a one-line usage error, and nothing is admitted',
    async (flags, message) => {
      const { r, first } = await reviewedOnce();
      for (const cmd of ['review', 'enqueue']) {
        const res = await runCli([cmd, '--head', 'topic', ...flags], { cwd: r.dir, env: asOcto });
        expect(res.code).toBe(2);
        expect(res.stderr.trim().split('\n')).toEqual([expect.stringMatching(message)]);
      }
      const listed = await runCli(['status', '--json'], { cwd: r.dir, env: asOcto });
      expect((listed.json as { runs: { runId: string }[] }).runs.map((x) => x.runId)).toEqual([first.runId]);
    },
    120_000,
  );
});
