/**
 * Every completed run has its record: one whose signed record is not on this
 * machine (its writer died between the ledger's end and the file, or another
 * machine drove it) is named by `status` with the command that writes it, and
 * `resume` writes it from the ledger. Real git, a real subprocess reviewer,
 * the CLI as a process, the SQLite ledger.
 */
import { existsSync, rmSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  baseConfig,
  ensureBuilt,
  makeReviewRepo,
  pass,
  reposRemovedAfterAll,
  runCli,
} from '../loop/helpers.js';

const repos = reposRemovedAfterAll();
beforeAll(() => ensureBuilt(), 120_000);

describe('a completed run without its record here', () => {
  it('status names it with the resume command, and resume writes the record', async () => {
    const r = await makeReviewRepo({ config: (a) => baseConfig(a) });
    repos.push(r);
    r.plan({ reviewer: [{ reply: pass }] });
    const res = await runCli(['review', '--head', 'topic', '--json'], { cwd: r.dir });
    expect(res.json, res.stderr).toMatchObject({ status: 'completed', outcome: 'clear' });
    const runId = String(res.json?.runId);
    const record = String(res.json?.record);
    expect(existsSync(record)).toBe(true);
    const before = await runCli(['status'], { cwd: r.dir });
    expect(before.stdout).not.toContain('without its signed record');

    rmSync(record);
    const listed = await runCli(['status'], { cwd: r.dir });
    expect(listed.stdout).toContain(`run ${runId} completed without its signed record here; write it with:`);
    expect(listed.stdout).toContain(`resume ${runId}`);
    const json = await runCli(['status', '--json'], { cwd: r.dir });
    const runs = (json.json?.runs ?? []) as { recordMissing: boolean }[];
    expect(runs[0]?.recordMissing).toBe(true);
    const one = await runCli(['status', runId], { cwd: r.dir });
    expect(one.stdout).toContain('its signed record is not on this machine');

    const resumed = await runCli(['resume', runId], { cwd: r.dir });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(existsSync(record)).toBe(true);
    const after = await runCli(['status'], { cwd: r.dir });
    expect(after.stdout).not.toContain('without its signed record');
  });
});
