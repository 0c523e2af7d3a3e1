/**
 * Every completed run has its record: one whose signed record is not on this
 * machine (its writer died between the ledger's end and the file, or another
 * machine drove it) is written here by `status` from the envelope the ledger
 * keeps; one the ledger has no envelope of (its writer died before signing)
 * is named by `status` with the command that writes it, and `resume` signs
 * it and keeps it there. Real git, a real subprocess reviewer, the CLI as a
 * process, the SQLite ledger.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { recordPathFor } from '../../src/record/write.js';
import {
  baseConfig,
  dyingAt,
  ensureBuilt,
  inProcess,
  makeReviewRepo,
  pass,
  reposRemovedAfterAll,
  review,
  runCli,
} from '../loop/helpers.js';

const repos = reposRemovedAfterAll();
beforeAll(() => ensureBuilt(), 120_000);

describe('a completed run without its record here', () => {
  it('status writes it from the ledger', async () => {
    const r = await makeReviewRepo({ config: (a) => baseConfig(a) });
    repos.push(r);
    r.plan({ reviewer: [{ reply: pass }] });
    const res = await runCli(['review', '--head', 'topic', '--json'], { cwd: r.dir });
    expect(res.json, res.stderr).toMatchObject({ status: 'completed', outcome: 'clear' });
    const runId = String(res.json?.runId);
    const record = String(res.json?.record);
    const signed = readFileSync(record, 'utf8');

    rmSync(record);
    const listed = await runCli(['status'], { cwd: r.dir });
    expect(listed.stdout).toContain(`run ${runId}: signed record written here from the ledger: ${record}`);
    expect(readFileSync(record, 'utf8')).toBe(signed);
    const after = await runCli(['status'], { cwd: r.dir });
    expect(after.stdout).not.toContain(runId.concat(':'));
  });

  it('status names one the ledger has no envelope of with the resume command, and resume writes it', async () => {
    const r = await makeReviewRepo({ config: (a) => baseConfig(a) });
    repos.push(r);
    r.plan({ reviewer: [{ reply: pass }] });
    // The controller dies between the ledger's end and the record.
    const p = await inProcess(r.dir, { tweak: dyingAt('after:finish', 30_000) });
    await expect(review(p, r.dir)).rejects.toThrow('controller died');
    const [run] = await p.store.listRuns();
    await p.close();
    const runId = String(run?.id);
    const record = recordPathFor(r.dir, runId);
    expect(run?.status).toBe('completed');
    expect(existsSync(record)).toBe(false);

    const listed = await runCli(['status'], { cwd: r.dir });
    expect(listed.stdout).toContain(`run ${runId} completed without its signed record here; write it with:`);
    expect(listed.stdout).toContain(`resume ${runId}`);
    const json = await runCli(['status', '--json'], { cwd: r.dir });
    const runs = (json.json?.runs ?? []) as { recordMissing: boolean }[];
    expect(runs[0]?.recordMissing).toBe(true);
    const one = await runCli(['status', runId], { cwd: r.dir });
    expect(one.stdout).toContain('its signed record is not on this machine');

    const unsigned = await runCli(['verify', '--run', runId], { cwd: r.dir });
    expect(unsigned.code).toBe(2);
    expect(unsigned.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(
        new RegExp(
          `run ${runId} has no signed record in the ledger or on this machine; write it with: .*resume ${runId}$`,
        ),
      ),
    ]);

    const resumed = await runCli(['resume', runId], { cwd: r.dir });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(existsSync(record)).toBe(true);
    const after = await runCli(['status'], { cwd: r.dir });
    expect(after.stdout).not.toContain('without its signed record');
  });
});
