import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { renderSvgChart } from '../../src/report/chart-svg.js';
import { resolveParams, simChartSpec, simulate } from '../../src/sim/index.js';
import { ensureBuilt, revloop } from './cli-support.js';

beforeAll(() => ensureBuilt(), 600_000);

describe('revloop sim (the built binary)', () => {
  it('prints byte-identical JSON for the same seed, twice, matching the library', () => {
    const a = revloop(['sim', '--json', '--seed', '7']);
    const b = revloop(['sim', '--json', '--seed', '7']);
    expect(a.status).toBe(0);
    expect(a.stdout).toBe(b.stdout);
    const doc = JSON.parse(a.stdout);
    expect(Object.keys(doc)).toEqual(['params', 'baseline', 'capped', 'config']);
    expect(Object.keys(doc.config)).toEqual([
      'perRound',
      'terminatedPct',
      'convergedPct',
      'escalatedPct',
      'cappedPct',
      'falseEscalationPct',
      'meanRounds',
      'medianRounds',
      'p90Rounds',
      'shipped',
      'shippedDefects',
      'shippedConflicts',
      'wastedRounds',
      'falseReworks',
      'reviewCalls',
      'refuterCalls',
      'memoryHits',
      'memoryHitPct',
      'ci',
    ]);
    expect(a.stdout).toBe(`${JSON.stringify(simulate(resolveParams(null, { seed: 7 })), null, 2)}\n`);
  });

  it('lets explicit flags override the preset', () => {
    const r = revloop([
      'sim',
      '--json',
      '--preset',
      'hostile',
      '--false-positive',
      '0.01',
      '--upgrades',
      'U1,U4',
    ]);
    expect(r.status).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.params.preset).toBe('hostile');
    expect(doc.params.falsePositive).toBe(0.01);
    expect(doc.params.inflation).toBe(0.3);
    expect(doc.params.upgrades).toEqual(['U1', 'U4']);
  });

  it.each([
    [['--trials', 'many'], '--trials'],
    [['--refuter-accuracy', '1.2'], '--refuter-accuracy'],
    [['--upgrades', 'U7'], '--upgrades'],
    [['--cap', '20', '--max-rounds', '15'], '--max-rounds'],
    [['--stop-window', '0'], '--stop-window'],
    [['--shrink-ratio', '1.5'], '--shrink-ratio'],
    [['--regions', '0'], '--regions'],
    [['--gaming', '-0.1'], '--gaming'],
    [['--samples', '3', '--block', '4'], '--block'],
    [['--sample-detection', '2'], '--sample-detection'],
    [['--recurrence', 'often'], '--recurrence'],
  ])('exits 2 naming the flag for %j', (flags, flag) => {
    const r = revloop(['sim', ...flags]);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(`revloop: ${flag}:`);
    expect(r.stdout).toBe('');
  });

  // Fixed choices are commander's `.choices` (issue 16, point 10): its one line names the flag and the list.
  it.each([
    [['--preset', 'sunny'], '--preset <p>', 'healthy, hostile, oscillating, inflating'],
    [['--stop-rule', 'vibes'], '--stop-rule <r>', 'evidence, count'],
    [['--sample-on', 'never'], '--sample-on <when>', 'all, blockers'],
  ])('exits 2 naming the flag and its choices for %j', (flags, flag, choices) => {
    const r = revloop(['sim', ...flags]);
    expect(r.status).toBe(2);
    expect(r.stderr).toBe(
      `revloop: option '${flag}' argument '${flags[1]}' is invalid. Allowed choices are ${choices}.\n`,
    );
    expect(r.stdout).toBe('');
  });

  it('finishes the flags that used to abort Node at about 3.4 GB', () => {
    const r = revloop([
      'sim',
      '--json',
      '--oscillation',
      '1',
      '--fix-success',
      '0',
      '--trials',
      '1',
      '--upgrades',
      'none',
      '--max-rounds',
      '24',
    ]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout).config.perRound).toHaveLength(24);
  });

  it('prints the report and writes the same chart as SVG', () => {
    const dir = mkdtempSync(join(tmpdir(), 'revloop-sim-'));
    const r = revloop(['sim', '--preset', 'oscillating', '--trials', '40', '--svg', 'out/chart.svg'], {
      cwd: dir,
    });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(
      '| Round | Baseline (no cap) | Baseline (cap 10) | Your config (U1+U2+U3+U4) |',
    );
    expect(r.stdout).toContain('# Baseline (no cap)');
    const expected = renderSvgChart(simChartSpec(simulate(resolveParams('oscillating', { trials: 40 }))));
    expect(readFileSync(join(dir, 'out/chart.svg'), 'utf8')).toBe(expected);
  });
});
