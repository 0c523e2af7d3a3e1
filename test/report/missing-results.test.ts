/**
 * Invariant 18 in the markdown summary and the GitHub annotations (issue 15,
 * point 18 of its family): a run that did not complete, and a reviewer call
 * with no verdict, must read as missing, never as a clean pass.
 */
import { describe, expect, it } from 'vitest';
import { toGithubAnnotations } from '../../src/report/github-annotations.js';
import { toMarkdown } from '../../src/report/markdown.js';
import { missingVerdicts } from '../../src/report/missing-verdicts.js';
import { crashedReviewerReport, sampleReport } from './fixtures.js';

describe('missingVerdicts', () => {
  it('names each reviewer call of a reviewed round that has no verdict, and nothing for a complete run', () => {
    expect(missingVerdicts(sampleReport())).toEqual([]);
    expect(missingVerdicts(crashedReviewerReport())).toEqual([
      { round: 1, reviewer: 'standards', class: 'failed', detail: 'exited with code 1: boom\nat line 2' },
    ]);
  });
});

describe('toMarkdown of a run with a missing result', () => {
  const md = toMarkdown(crashedReviewerReport());

  it('the round does not read "0 blocking" as if it were clean', () => {
    expect(md).toContain('| 1 | `ccccccc` | 0, no verdict from standards | 0 |');
    expect(md).not.toMatch(/\| 1 \| `ccccccc` \| 0 \| 0 \|/);
  });

  it('lists the missing results and says this is not a pass', () => {
    expect(md).toContain('### Missing results (1)');
    expect(md).toContain('- no verdict from standards in round 1 \\(failed: exited with code 1: boom\\)');
    expect(md).not.toContain('None.');
    expect(md).toContain(
      'The review did not complete: no blocker was found before it stopped, which is not a pass.',
    );
  });

  it('a completed run with every verdict keeps its plain form', () => {
    const full = toMarkdown(sampleReport());
    expect(full).not.toContain('Missing results');
    expect(full).toMatch(/\| 2 \| `ddddddd` \| 2 \| 6 \|/);
  });
});

describe('toGithubAnnotations of a run with a missing result', () => {
  it('a run that did not complete is an error annotation, with one per missing verdict', () => {
    const lines = toGithubAnnotations(crashedReviewerReport()).trimEnd().split('\n');
    expect(lines).toEqual([
      '::error title=revloop run did not complete::run run-0001 failed: reviewer_failed: reviewer standards: exited with code 1: boom. The review is incomplete; this is not a pass.',
      '::error title=revloop no verdict::no verdict from standards in round 1 (failed: exited with code 1: boom)',
    ]);
  });

  it('the incomplete-run errors come before findings, so the per-step cap never drops them', () => {
    const r = sampleReport({ status: 'aborted', outcome: null, stopReason: null, reason: 'budget_cost' });
    const lines = toGithubAnnotations(r, { error: 1, warning: 10, notice: 10, total: 50 }).split('\n');
    expect(lines[0]).toMatch(
      /^::error title=revloop run did not complete::run run-0001 aborted: budget_cost/,
    );
    expect(lines.filter((l) => l.startsWith('::error'))).toHaveLength(1);
  });

  it('a complete run has no such annotation', () => {
    expect(toGithubAnnotations(sampleReport())).not.toContain('did not complete');
  });
});
