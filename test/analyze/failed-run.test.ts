/**
 * Invariant 18 in the round log: a run that failed with no verdict never
 * reads as converged. Its export says how the run ended, and `analyze` says
 * the last round went unjudged instead of "Converged: the last round has no
 * blocker". Real git, a real subprocess reviewer, the CLI as a process.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { baseConfig, ensureBuilt, makeReviewRepo, reposRemovedAfterAll, runCli } from '../loop/helpers.js';

const repos = reposRemovedAfterAll();
beforeAll(() => ensureBuilt(), 120_000);

describe('the round log of a run that failed', () => {
  it('carries the run status and analyze calls it not converged', async () => {
    const r = await makeReviewRepo({
      config: (a) => baseConfig(a, { retry: { attempts: 1, baseDelayMs: 1, maxDelayMs: 1 } }),
    });
    repos.push(r);
    r.plan({ reviewer: [{ stdout: 'not json at all' }] });
    const res = await runCli(['review', '--head', 'topic', '--json'], { cwd: r.dir });
    expect(res.json, res.stderr).toMatchObject({ status: 'failed' });
    const exported = await runCli(['export', String(res.json?.runId), '--format', 'rounds'], { cwd: r.dir });
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.json).toMatchObject({ status: 'failed' });
    const file = `${r.dir}/rounds.json`;
    const { writeFileSync } = await import('node:fs');
    writeFileSync(file, exported.stdout);
    const text = await runCli(['analyze', file], { cwd: r.dir });
    expect(text.stdout).not.toContain('Converged');
    expect(text.stdout).toContain('Not converged: the run ended failed');
    const json = await runCli(['analyze', file, '--json'], { cwd: r.dir });
    expect(json.json).toMatchObject({ converged: false });
  });
});
