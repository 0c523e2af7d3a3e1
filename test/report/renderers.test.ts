import { describe, expect, it } from 'vitest';
import {
  escapeData,
  escapeProperty,
  GITHUB_LIMITS,
  toGithubAnnotations,
} from '../../src/report/github-annotations.js';
import { mdText, toMarkdown } from '../../src/report/markdown.js';
import { renderRunSummary } from '../../src/report/terminal.js';
import { finding, sampleReport } from './fixtures.js';

function manyFindings(count: number, severity: 'MAJOR' | 'MODERATE' | 'MINOR', claimBytes = 40) {
  const r = sampleReport();
  r.findings = Array.from({ length: count }, (_, i) =>
    finding(2, 'correctness', { severity, claim: `claim ${i} ${'x'.repeat(claimBytes)}`, line: i + 1 }),
  );
  return r;
}

describe('toMarkdown', () => {
  it('summarises status, rounds, blockers by severity and why others do not block', () => {
    const md = toMarkdown(sampleReport());
    expect(md).toContain('revloop review: completed: findings (budget)');
    expect(md).toMatch(/\| 2 \| `ddddddd` \| 2 \| 6 \|/);
    expect(md).toContain('### Blockers (2)');
    expect(md).toContain('#### MAJOR (1)');
    expect(md).toContain('#### MODERATE (1)');
    expect(md).toContain('refuted by refuter: cache is per-request');
    expect(md).toContain('overturned by alice');
    expect(md).toContain('demoted from MAJOR');
    // Model text cannot inject HTML or table cells.
    expect(md).toContain('SQL injection &lt;script&gt;&amp;');
    expect(md).not.toContain('<script>');
  });

  it('carries escalation evidence when the loop stopped without progress', () => {
    const r = sampleReport({ stopReason: 'no_progress' });
    r.findings.push(
      finding(1, 'correctness', { claim: 'Lost update: counter is read, then written', line: 10 }),
    );
    const md = toMarkdown(r);
    expect(md).toContain('### Escalation: no progress');
    expect(md).toContain('blocking per round: 2 → 2');
    expect(md).toMatch(/Raised again in several rounds[\s\S]*Lost update/);
  });

  it('says when a run did not complete', () => {
    const md = toMarkdown(
      sampleReport({ status: 'failed', outcome: null, stopReason: null, reason: 'malformed' }),
    );
    expect(md).toContain('⚠️ revloop review: failed: malformed');
  });

  it('stays under the byte limit and says what it dropped', () => {
    const r = manyFindings(20_000, 'MAJOR', 60);
    const md = toMarkdown(r);
    expect(Buffer.byteLength(md)).toBeLessThan(1024 * 1024);
    expect(md).toMatch(/Truncated to stay under 1000000 bytes: \d+ more finding/);
    const small = toMarkdown(r, { maxBytes: 65_000 });
    expect(Buffer.byteLength(small)).toBeLessThanOrEqual(65_000);
    expect(small.trimEnd().endsWith('`revloop export --format sarif`.')).toBe(true);
  });

  it('escapes markdown in model text', () => {
    expect(mdText('a|b *c* [x](y)\n# h')).toBe('a\\|b \\*c\\* \\[x\\]\\(y\\) \\# h');
  });
});

describe('toGithubAnnotations', () => {
  it('escapes data and properties per the workflow-command rules', () => {
    expect(escapeData('100% a\r\nb')).toBe('100%25 a%0D%0Ab');
    expect(escapeProperty('a:b,c%')).toBe('a%3Ab%2Cc%25');
    const out = toGithubAnnotations(sampleReport());
    const lines = out.trimEnd().split('\n');
    expect(lines[0]).toBe(
      '::error file=src/a.ts,line=10,endLine=12,title=revloop MAJOR (correctness)::Lost update: counter is read, then written%0AScenario: two writers race',
    );
    expect(lines[1]).toMatch(
      /^::warning file=src\/b c\.ts,line=7,title=revloop MODERATE \(standards\)::missing error, handling: 100%25/,
    );
    expect(lines.filter((l) => l.startsWith('::notice'))).toHaveLength(4);
    expect(out).toContain('Not blocking: refuted by refuter');
  });

  it('caps at 10 errors and 10 warnings per step and summarises the rest', () => {
    const r = manyFindings(15, 'MAJOR');
    r.findings.push(...manyFindings(13, 'MODERATE').findings, ...manyFindings(30, 'MINOR').findings);
    const lines = toGithubAnnotations(r).trimEnd().split('\n');
    expect(lines.filter((l) => l.startsWith('::error'))).toHaveLength(10);
    expect(lines.filter((l) => l.startsWith('::warning'))).toHaveLength(10);
    expect(lines.filter((l) => l.startsWith('::notice'))).toHaveLength(10);
    expect(lines.length).toBeLessThanOrEqual(GITHUB_LIMITS.total);
    expect(lines.at(-1)).toMatch(/^::notice title=revloop::(\d+) more finding\(s\) not annotated/);
    expect(lines.at(-1)).toContain('29 more');
  });

  it('respects what is left of the per-job total', () => {
    const r = manyFindings(15, 'MAJOR');
    const lines = toGithubAnnotations(r, { error: 10, warning: 10, notice: 10, total: 4 })
      .trimEnd()
      .split('\n');
    expect(lines).toHaveLength(4);
    expect(lines.filter((l) => l.startsWith('::error'))).toHaveLength(3);
    expect(lines.at(-1)).toContain('12 more');
  });
});

describe('renderRunSummary', () => {
  it('prints the verdict and every finding with its severity and state', () => {
    const text = renderRunSummary(sampleReport());
    expect(text.split('\n')[0]).toBe('revloop run run-0001: completed: findings (budget)');
    expect(text).toMatch(/MAJOR {4}src\/a\.ts:10-12 {2}correctness {2}Lost update.*BLOCKS/);
    expect(text).toContain('[refuted by refuter: cache is per-request]');
    expect(text).toContain('round 1  ccccccc  1 blocking, 1 finding(s)');
  });
});
