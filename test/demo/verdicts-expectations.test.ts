/**
 * The `verdicts` demo's checks read the recorded reports, and each one fails
 * when its effect is missing: they are not a restatement of what the demo
 * printed. One real demo (real git, real SQLite ledger, scripted agents),
 * then each effect taken out of a copy of its reports.
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunReport } from '../../src/core/run-report.js';
import { type DemoResult, runDemo } from '../../src/demo/run-demo.js';
import { CURRENCY_FILES, verdictsExpectations } from '../../src/demo/verdicts-scenario.js';

let demo: DemoResult;
beforeAll(async () => {
  demo = await runDemo({ scenario: 'verdicts', env: { PATH: process.env.PATH } });
}, 120_000);
afterAll(() => rmSync(demo.dir, { recursive: true, force: true }));

const reports = () => demo.runs.map((r) => structuredClone(r.report));
const failing = (runs: RunReport[]) =>
  verdictsExpectations(runs)
    .filter((c) => !c.ok)
    .map((c) => c.what);

describe('the verdicts demo checks', () => {
  it('all hold on the real runs, with the designed numbers', () => {
    expect(demo.checks.filter((c) => !c.ok)).toEqual([]);
    const [first, second] = reports();
    const correctness = (r: RunReport | undefined) =>
      r?.verdicts.filter((v) => v.role === 'reviewer' && v.reviewer === 'correctness') ?? [];
    expect(correctness(first)).toHaveLength(CURRENCY_FILES);
    expect(correctness(second).filter((v) => v.reusedFrom)).toHaveLength(CURRENCY_FILES - 1);
    // second-look: one call per chunk, plus samples 1 and 2 on the chunk whose sample 0 raised a blocker.
    expect(second?.verdicts.filter((v) => v.reviewer === 'second-look')).toHaveLength(CURRENCY_FILES + 2);
  });

  it('fail when the flaky finding was reproduced, or was not demoted', () => {
    const runs = reports();
    const f = runs[0]?.findings.find((x) => x.reviewer === 'second-look');
    if (!f?.reproduction) throw new Error('no sampled finding');
    f.reproduction.seen = 2;
    expect(failing(runs)).toEqual([expect.stringContaining('seen in 1 of 3 samples')]);
    const again = reports();
    const g = again[0]?.findings.find((x) => x.reviewer === 'second-look');
    if (g) g.gate = { kind: 'kept' };
    expect(failing(again)).toEqual([expect.stringContaining('seen in 1 of 3 samples')]);
  });

  it('fail when run 2 called the refuter, or its refutation names no earlier run', () => {
    const runs = reports();
    const [first, second] = runs;
    const call = first?.attempts.find((a) => a.role === 'refuter');
    if (!second || !call) throw new Error('no refuter call in run 1');
    second.attempts.push({ ...call, runId: second.run.id });
    expect(failing(runs)).toEqual([expect.stringContaining('answered from run 1')]);
    const again = reports();
    const w = again[1]?.findings.find((x) => x.reviewer === 'correctness');
    if (w?.refutation) w.refutation.origin = undefined;
    expect(failing(again)).toEqual([expect.stringContaining('answered from run 1')]);
  });

  it('fail when a reused verdict was priced, came from elsewhere, or an unchanged chunk was asked again', () => {
    const priced = reports();
    const v = priced[1]?.verdicts.find((x) => x.reusedFrom);
    if (!v?.reusedFrom) throw new Error('nothing reused');
    v.costUsd = 0.0021;
    expect(failing(priced)).toEqual([expect.stringContaining('priced $0')]);
    const elsewhere = reports();
    const w = elsewhere[1]?.verdicts.find((x) => x.reusedFrom);
    if (w?.reusedFrom) w.reusedFrom = { ...w.reusedFrom, runId: 'r-other' };
    expect(failing(elsewhere)).toEqual([expect.stringContaining('priced $0')]);
    const asked = reports();
    const u = asked[1]?.verdicts.find((x) => x.reusedFrom && x.reviewer === 'correctness');
    if (u) u.reusedFrom = undefined;
    expect(failing(asked)).toEqual([expect.stringContaining("every other chunk's correctness verdict")]);
  });
});
