/**
 * The short fault campaign (test/faults/campaign.mjs): real `revloop worker` processes on two
 * clones share a PostgreSQL cluster the campaign owns, while faults drawn from a fixed seed hit
 * the server and the workers. The verdicts are the campaign's counts, never times: no safety
 * violation, no worker crash, no completed run without its signed record in the ledger (which
 * every machine writes its record from), no run lost to a fault: a run taken over on a clone
 * that lacks the fix commit made on the other one imports it from the ledger. The serve
 * scenario feeds `revloop serve` signed deliveries while the service is killed or restarted
 * and the server restarted or stopped: every acknowledged delivery is kept, one run per revision.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../loop/helpers.js';

interface Summary {
  runs: number;
  faults: number;
  safetyViolations: string[];
  runsLost: string[];
  crashes: string[];
  recordsMissing: string[];
}

interface ServeSummary {
  faults: number;
  distinct: number;
  recorded: number;
  drained: boolean;
  deliveriesLost: string[];
  deliveriesMissing: string[];
  runsTwice: string[];
  finalHeadsWithoutRun: string[];
  crashes: string[];
}

function campaign(args: string[]): Promise<{ code: number; summary: Summary | null; stderr: string }> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      [join(ROOT, 'test/faults/campaign.mjs'), ...args, '--json'],
      { cwd: ROOT, timeout: 600_000, maxBuffer: 16 << 20 },
      (err, stdout, stderr) => {
        let summary: Summary | null = null;
        try {
          summary = JSON.parse(stdout) as Summary;
        } catch {}
        done({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, summary, stderr });
      },
    );
  });
}

describe('the short fault campaign', () => {
  it('rides out a restart, a short outage, ended sessions and a worker killed or frozen past its lease', async () => {
    const res = await campaign([
      ...['--seed', '7', '--runs', '6', '--faults', '5', '--workers', '2', '--clones', '2'],
      ...['--down-seconds', '3', '--lease-seconds', '2'],
    ]);
    const s = res.summary;
    expect(s, res.stderr).not.toBeNull();
    expect(s?.runs).toBe(6);
    expect(s?.faults).toBe(5);
    expect(s?.safetyViolations).toEqual([]);
    expect(s?.crashes).toEqual([]);
    expect(s?.recordsMissing).toEqual([]);
    expect(s?.runsLost).toEqual([]);
  }, 600_000);

  it('serve scenario: no acknowledged delivery lost and one run per revision across a killed service and a restarted server', async () => {
    const res = await campaign(['--serve', '--seed', '3']);
    const s = res.summary as unknown as ServeSummary | null;
    expect(s, res.stderr).not.toBeNull();
    expect(s?.faults).toBe(4);
    expect(s?.drained).toBe(true);
    expect(s?.recorded).toBe(s?.distinct);
    expect(s?.deliveriesLost).toEqual([]);
    expect(s?.deliveriesMissing).toEqual([]);
    expect(s?.runsTwice).toEqual([]);
    expect(s?.finalHeadsWithoutRun).toEqual([]);
    expect(s?.crashes).toEqual([]);
    expect(res.code).toBe(0);
  }, 600_000);

  it('refuses a bad argument with one line and exit 2', async () => {
    const res = await campaign(['--runs', 'many']);
    expect(res.code).toBe(2);
    expect(res.stderr.split('\n')[0]).toBe('fault campaign: --runs must be a whole number, got "many"');
  });
});
