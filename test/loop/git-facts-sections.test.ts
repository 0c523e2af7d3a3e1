/**
 * The section starts a diff read found as it streamed in (DiffRead.sectionStarts)
 * reach Git.promptSections only with the very text they were found in: a read
 * of this process (seedDiff, as admission hands it over) or of the run, never
 * for another diff string of the same head.
 */
import { describe, expect, it } from 'vitest';
import { GitFacts } from '../../src/loop/run/git-facts.js';
import type { Git } from '../../src/ports/git.js';

const TEXT = 'diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n';

function spyGit() {
  const asked: (readonly number[] | undefined)[] = [];
  const git = {
    diffRead: async () => ({ digest: 'd', text: TEXT, sectionStarts: [0] }),
    promptSections: async (
      _r: string,
      _b: string,
      _h: string,
      _d: string,
      _l: number,
      starts?: readonly number[],
    ) => {
      asked.push(starts);
      return [];
    },
  } as unknown as Git;
  return { git, asked };
}

describe('GitFacts.promptSections', () => {
  it("passes on the read's starts for the read's own text, and none for another text", async () => {
    const { git, asked } = spyGit();
    const facts = new GitFacts(git, '/repo', 'base', (e) => e);
    const read = await facts.diff('head');
    await facts.promptSections('head', read.text ?? '', 100);
    await facts.promptSections('head', `${TEXT}more\n`, 200);
    expect(asked).toEqual([[0], undefined]);
  });

  it('passes them on for a read seeded by admission', async () => {
    const { git, asked } = spyGit();
    const facts = new GitFacts(git, '/repo', 'base', (e) => e);
    facts.seedDiff('head', { digest: 'd', text: TEXT, sectionStarts: [0] });
    await facts.promptSections('head', TEXT, 100);
    await facts.promptSections('other', TEXT, 100);
    expect(asked).toEqual([[0], undefined]);
  });
});
