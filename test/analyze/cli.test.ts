import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { analyzeChartSpec, analyzeRoundLog, renderAnalyzeReport } from '../../src/analyze/index.js';
import { renderSvgChart } from '../../src/report/chart-svg.js';
import { ensureBuilt, revloop } from '../sim/cli-support.js';

beforeAll(() => ensureBuilt(), 600_000);

const log = {
  rounds: [
    { findings: [{ reviewer: 'standards', severity: 'MAJOR', overturned: false, id: 'x' }] },
    {
      findings: [
        { reviewer: 'standards', severity: 'MODERATE', overturned: true },
        { reviewer: 'annotations', severity: 'MODERATE', overturned: false },
      ],
    },
    { findings: [{ reviewer: 'annotations', severity: 'MINOR', overturned: false }] },
  ],
};
const expectedJson = `${JSON.stringify(analyzeRoundLog(log), null, 2)}\n`;

describe('revloop analyze (the built binary)', () => {
  it('reads a file relative to the working directory', () => {
    const dir = mkdtempSync(join(tmpdir(), 'revloop-analyze-'));
    writeFileSync(join(dir, 'log.json'), JSON.stringify(log));
    const r = revloop(['analyze', 'log.json', '--json'], { cwd: dir });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(expectedJson);
    expect(JSON.parse(r.stdout)).toMatchObject({
      converged: true,
      roundsToConverge: 3,
      divergentRounds: [2],
    });
  });

  it('reads stdin for -', () => {
    const r = revloop(['analyze', '-', '--json'], { input: JSON.stringify(log) });
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(expectedJson);
  });

  it('prints the readable report and writes the chart as SVG', () => {
    const dir = mkdtempSync(join(tmpdir(), 'revloop-analyze-'));
    const r = revloop(['analyze', '-', '--svg', 'chart.svg'], { cwd: dir, input: JSON.stringify(log) });
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(renderAnalyzeReport(analyzeRoundLog(log)));
    expect(readFileSync(join(dir, 'chart.svg'), 'utf8')).toBe(
      renderSvgChart(analyzeChartSpec(analyzeRoundLog(log))),
    );
  });

  it('exits 2 naming the path of the first bad field', () => {
    const bad = {
      rounds: [{ findings: [] }, { findings: [{ reviewer: 'a', severity: 'HIGH', overturned: false }] }],
    };
    const r = revloop(['analyze', '-'], { input: JSON.stringify(bad) });
    expect(r.status).toBe(2);
    expect(r.stderr).toBe(
      'revloop: $.rounds[1].findings[0].severity: expected one of MAJOR, MODERATE, MINOR\n',
    );
    expect(r.stdout).toBe('');
  });

  it('exits 2 for text that is not JSON and for a missing file', () => {
    const notJson = revloop(['analyze', '-'], { input: 'rounds: []' });
    expect(notJson.status).toBe(2);
    expect(notJson.stderr).toMatch(/^revloop: \$: not valid JSON/);
    const missing = revloop(['analyze', 'no-such-file.json']);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toBe('revloop: cannot read no-such-file.json: ENOENT\n');
  });
});
