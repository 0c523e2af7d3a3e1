/**
 * Coverage means content: a file moved out of an ignored path reached no
 * reviewer before, so its move is shown as an addition, whole, whatever git's
 * rename detection pairs. Real git repositories, a real subprocess reviewer,
 * a real SQLite ledger.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import {
  baseConfig,
  ensureBuilt,
  findings,
  inProcess,
  makeReviewRepo,
  pass,
  raceFinding,
  reposRemovedAfterAll,
  review,
} from './helpers.js';

const repos = reposRemovedAfterAll();
beforeAll(() => ensureBuilt(), 600_000);

const lines = (marker: string) =>
  Array.from({ length: 30 }, (_, i) => `export const v${i} = ${i}; // ${i === 7 ? marker : 'plain'}\n`).join(
    '',
  );

describe('a rename from an ignored path is reviewed as an addition', () => {
  it('moved whole (100 %) or with an edit, out of dist/: its content reaches the reviewer', async () => {
    const r = await makeReviewRepo({
      config: (a) =>
        baseConfig(a, {
          ignore: ['dist/**'],
          reviewers: [
            { name: 'exact', ...a },
            { name: 'edited', ...a },
          ],
        }),
      files: { 'dist/exact.js': lines('EXACT_MOVE_MARKER'), 'dist/edited.js': lines('EDITED_MOVE_MARKER') },
      change: { 'src/other.js': 'export const other = 1;\n' },
    });
    repos.push(r);
    r.repo.git(['mv', 'dist/exact.js', 'src/exact.js']);
    r.repo.git(['mv', 'dist/edited.js', 'src/edited.js']);
    r.repo.write('src/edited.js', lines('EDITED_MOVE_MARKER').replace('v0 = 0', 'v0 = 100'));
    r.repo.commit('move the built files into src');
    const p = await inProcess(r.dir);
    const on = (file: string) => raceFinding({ file, line: 8, endLine: 8, claim: `${file} hides a payload` });
    // Each reviewer blocks only when the moved file's content is in its prompt.
    r.plan({
      'reviewer:exact': [{ when: 'EXACT_MOVE_MARKER', reply: findings(on('src/exact.js')) }, { reply: pass }],
      'reviewer:edited': [
        { when: 'EDITED_MOVE_MARKER', reply: findings(on('src/edited.js')) },
        { reply: pass },
      ],
    });
    try {
      const { report, run } = await review(p, r.dir);
      expect(run.outcome).toBe('findings');
      expect(report.findings.map((f) => [f.reviewer, f.reported.file])).toEqual([
        ['exact', 'src/exact.js'],
        ['edited', 'src/edited.js'],
      ]);
    } finally {
      await p.close();
    }
  });
});
