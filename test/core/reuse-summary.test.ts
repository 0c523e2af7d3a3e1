/** What a run says about its reused verdicts: counted per role, with their sources, in one line. */
import { describe, expect, it } from 'vitest';
import { reuseLine, reuseSummary } from '../../src/core/reuse-summary.js';

const from = (runId: string, revision: string) => ({ callKey: `ck-${runId}`, runId, revision });

describe('reuseSummary and reuseLine', () => {
  it('is null when nothing was reused, so a record without reuse keeps its shape', () => {
    expect(reuseSummary([{ callKey: 'a', role: 'reviewer' }])).toBeNull();
  });

  it.each([
    [
      'one source',
      [
        { callKey: 'a', role: 'reviewer' as const, reusedFrom: from('R1', 'abc1234ffff') },
        { callKey: 'b', role: 'reviewer' as const },
      ],
      '1 of 2 reviewer verdicts reused from run R1 at revision abc1234 (identical calls, not asked again)',
    ],
    [
      'two roles, two sources',
      [
        { callKey: 'a', role: 'reviewer' as const, reusedFrom: from('R1', 'abc1234ffff') },
        { callKey: 'c', role: 'refuter' as const, reusedFrom: from('R2', 'def5678ffff') },
        { callKey: 'd', role: 'fixer' as const },
      ],
      '1 of 1 reviewer verdict, 1 of 1 refuter verdict reused from 2 earlier runs or revisions (identical calls, not asked again)',
    ],
  ])('%s', (_, verdicts, line) => {
    const s = reuseSummary(verdicts);
    expect(s?.from.map((f) => f.callKey)).toEqual(
      verdicts.filter((v) => 'reusedFrom' in v).map((v) => v.callKey),
    );
    expect(s && reuseLine(s)).toBe(line);
  });
});
