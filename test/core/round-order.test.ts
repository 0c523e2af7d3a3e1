/**
 * One order of a round's stages, written once (core/round-order.ts): the
 * driver walked review, refute, decide, fix, checks while every store listed
 * decide last. The driver and the stores now take it from there, and no
 * other source file spells a round's stages out.
 */
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROUND_STAGES, stageRank } from '../../src/core/round-order.js';
import { Stage } from '../../src/core/types.js';
import { STAGE_RANK_SQL } from '../../src/store/shared/rules.js';
import { SRC, sourceFiles } from '../helpers/source-files.js';

describe('the round order', () => {
  it('holds every stage once, decide before the fix it asks for', () => {
    expect([...ROUND_STAGES].sort()).toEqual(Object.values(Stage).sort());
    expect(ROUND_STAGES).toEqual(['review', 'refute', 'decide', 'fix', 'checks']);
    expect(ROUND_STAGES.map(stageRank)).toEqual([0, 1, 2, 3, 4]);
  });

  it('the stores rank stages by it in SQL', () => {
    expect(STAGE_RANK_SQL).toBe(
      "CASE stage WHEN 'review' THEN 0 WHEN 'refute' THEN 1 WHEN 'decide' THEN 2 WHEN 'fix' THEN 3 WHEN 'checks' THEN 4 END",
    );
  });

  it('no other source file writes the stages out in a list', () => {
    const list = /['"](review|refute|decide|fix|checks)['"]\s*,\s*['"](review|refute|decide|fix|checks)['"]/;
    const rank = /WHEN 'review' THEN/;
    const hits = sourceFiles()
      .filter((f) => !f.endsWith('round-order.ts'))
      .filter((f) => list.test(readFileSync(f, 'utf8')) || rank.test(readFileSync(f, 'utf8')))
      .map((f) => relative(SRC, f));
    expect(hits).toEqual([]);
  });
});
