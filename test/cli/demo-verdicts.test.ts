/**
 * `revloop demo --scenario verdicts` through the real CLI: two runs of one
 * change on one ledger, before and after a one-line push. Every expectation
 * the scenario was designed to meet holds (they are read from the recorded
 * reports: a flaky MODERATE seen in 1 of 3 samples and demoted, a refuted
 * claim answered from memory in run 2 with no refuter call, every unchanged
 * chunk's verdict reused at $0 from run 1), the exit code says so, and the
 * screen says each of the three in words.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, ensureBuilt } from '../record/setup.js';

let dir: string;
beforeAll(() => {
  ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'revloop-demo-verdicts-'));
}, 300_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface DemoJson {
  asDesigned: boolean;
  checks: { what: string; ok: boolean }[];
  run: { runId: string; status: string; outcome: string; costUsd: number };
  runs: { runId: string; status: string; outcome: string; costUsd: number; head: string }[];
}

describe('revloop demo --scenario verdicts', () => {
  it('meets every expectation from the recorded reports, and exits 0', () => {
    const r = cli(['demo', '--scenario', 'verdicts', '--dir', join(dir, 'json'), '--json'], dir);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as DemoJson;
    expect(out.checks.filter((c) => !c.ok)).toEqual([]);
    expect(out.checks.length).toBe(8);
    expect(out.asDesigned).toBe(true);
    expect(out.runs).toHaveLength(2);
    const [first, second] = out.runs;
    expect(second?.runId).toBe(out.run.runId);
    expect(first?.runId).not.toBe(second?.runId);
    for (const run of out.runs) expect(run).toMatchObject({ status: 'completed', outcome: 'clear' });
    // Run 2 paid for one chunk per reviewer: two scripted passes.
    expect(second?.costUsd).toBeCloseTo(2 * 0.0021, 6);
    expect(second?.costUsd).toBeLessThan((first?.costUsd ?? 0) / 10);
  }, 120_000);

  it('says each effect on screen, with the real numbers', () => {
    const r = cli(['demo', '--scenario', 'verdicts', '--dir', join(dir, 'text')], dir);
    expect(r.code, r.stderr).toBe(0);
    const run1 = /Run 1 \((\w+)\)/.exec(r.stdout)?.[1] ?? '';
    expect(run1).not.toBe('');
    expect(r.stdout).toContain('[seen in 1 of 3 samples]');
    expect(r.stdout).toContain('demoted to MINOR: seen in 1 of 3 samples');
    expect(r.stdout).toContain(
      `answered from memory, the refuter was not called: refuted earlier in run ${run1}, round 1, by refuter:`,
    );
    expect(r.stdout).toContain('correctness: 30 verdicts (1 asked, 29 reused at $0)');
    expect(r.stdout).toContain('second-look: 32 verdicts (1 asked, 31 reused at $0)');
    expect(r.stdout).toMatch(
      new RegExp(`60 of 62 reviewer verdicts reused from run ${run1} at revision \\w{7}`),
    );
    expect(r.stdout).not.toContain('[ ]');
  }, 120_000);

  it('an unknown scenario is refused in one line naming the flag, exit 2, and builds nothing', () => {
    const target = join(dir, 'nope');
    const r = cli(['demo', '--scenario', 'nope', '--dir', target], dir);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual([expect.stringMatching(/--scenario.*'nope'.*verdicts/)]);
    expect(() => rmSync(target)).toThrow();
  });
});
