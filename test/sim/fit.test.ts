import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/core/errors.js';
import { FITTED, fitRoundLogs, parseFitText, resolveParams, simulateRoundLogs } from '../../src/sim/index.js';
import { ensureBuilt, revloop } from './cli-support.js';

beforeAll(() => ensureBuilt(), 120_000);

describe('sim --fit: the round trip', () => {
  it.each([
    ['hostile', 1],
    ['hostile', 2],
    ['inflating', 1],
    ['inflating', 2],
    [null, 1],
    [null, 2],
  ] as const)(
    'recovers the parameters of %s logs (seed %i) the sim generated, within its intervals',
    (preset, seed) => {
      const p = resolveParams(preset, { seed });
      const logs = simulateRoundLogs(p, 800);
      // Through the JSON text a file would hold, as `--fit` reads it.
      const fit = fitRoundLogs(parseFitText('sim.json', JSON.stringify(logs)));
      const truth = { ...p, seenPerReviewer: p.defects * p.detection } as unknown as Record<string, number>;
      const misses = FITTED.filter((k) => {
        const [lo, hi] = fit.estimates[k].ci;
        return !(lo <= truth[k]! && truth[k]! <= hi);
      }).map((k) => `${k}: true ${truth[k]}, fit ${JSON.stringify(fit.estimates[k])}`);
      expect(misses).toEqual([]);
      expect(fit.runs).toBe(800);
      expect(fit.reviewers).toBe(p.reviewers);
    },
  );
});

describe('sim --fit: bad input is a usage error naming the field or the minimum', () => {
  const logs = simulateRoundLogs(resolveParams('hostile', {}), 30);
  const usage = (f: () => unknown): string => {
    try {
      f();
    } catch (err) {
      expect(err).toBeInstanceOf(UsageError);
      return (err as Error).message;
    }
    throw new Error('expected a UsageError');
  };

  it('names the file and the path of an unknown severity or a missing field', () => {
    const bad = structuredClone(logs);
    bad[3]!.rounds[0]!.findings[0]!.severity = 'HUGE' as 'MAJOR';
    expect(usage(() => parseFitText('a.json', JSON.stringify(bad)))).toBe(
      'a.json: $[3].rounds[0].findings[0].severity: expected one of MAJOR, MODERATE, MINOR',
    );
    const bare = { rounds: [{ findings: [{ reviewer: 'x', severity: 'MAJOR', overturned: false }] }] };
    expect(usage(() => parseFitText('seed.json', JSON.stringify(bare)))).toBe(
      'seed.json: $.rounds[0].findings[0].refuted: expected boolean, got nothing (the field is missing)',
    );
  });

  it('says how much data a fit needs when the logs are too small', () => {
    expect(usage(() => fitRoundLogs(logs.slice(0, 4)))).toBe(
      '--fit: need at least 10 runs across the logs, got 4',
    );
    const fewNits = simulateRoundLogs(resolveParams('healthy', {}), 40);
    expect(usage(() => fitRoundLogs(fewNits))).toMatch(
      /^--fit: need at least 10 MODERATE findings in round 1/,
    );
  });
});

describe('revloop sim --fit (the built binary)', () => {
  it('fits exported logs from several files, prints the estimates and simulates that team', () => {
    const dir = mkdtempSync(join(tmpdir(), 'revloop-fit-'));
    const logs = simulateRoundLogs(resolveParams('hostile', { seed: 3 }), 200);
    writeFileSync(join(dir, 'a.json'), JSON.stringify(logs.slice(0, 100)));
    writeFileSync(join(dir, 'b.json'), `\ufeff${JSON.stringify(logs.slice(100))}`);
    const r = revloop(['sim', '--fit', 'a.json', 'b.json', '--trials', '50', '--json'], { cwd: dir });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(Object.keys(doc)).toEqual(['fit', 'params', 'baseline', 'capped', 'config']);
    expect(doc.fit.runs).toBe(200);
    expect(doc.params.inflation).toBe(doc.fit.environment.inflation);
    const text = revloop(['sim', '--fit', 'a.json', 'b.json', '--trials', '50'], { cwd: dir });
    expect(text.stdout).toContain('# Fitted from 200 runs (3 reviewers)');
    expect(text.stdout).toMatch(/\| refuterAccuracy \| 0\.\d{3} \| \[0\.\d{3}, [01]\.\d{3}\] \|/);
  });

  it('exits 2 naming what is wrong', () => {
    const dir = mkdtempSync(join(tmpdir(), 'revloop-fit-'));
    writeFileSync(
      join(dir, 'small.json'),
      JSON.stringify(simulateRoundLogs(resolveParams('hostile', {}), 3)),
    );
    const small = revloop(['sim', '--fit', 'small.json'], { cwd: dir });
    expect(small.status).toBe(2);
    expect(small.stderr).toBe('revloop: --fit: need at least 10 runs across the logs, got 3\n');
    const missing = revloop(['sim', '--fit', 'nope.json'], { cwd: dir });
    expect(missing.status).toBe(2);
    expect(missing.stderr).toBe('revloop: --fit: cannot read nope.json: ENOENT\n');
  });
});
