/**
 * git's rename detection, asked of only the files a canonical diff adds and
 * deletes whole and no exact rename paired (diff-sections.ts). The canonical
 * diff is `--no-renames` so that its digest does not rest on git's
 * similarity heuristic; prompts may: a file moved with its imports fixed was
 * a whole deletion and a whole addition, every line twice, and over
 * `review.chunkBytes` it failed the run. Here git writes each such pair as
 * it would for a person (`similarity index N%`, `rename from`, `rename to`,
 * and the hunks of the edit), with the canonical diff's pinned options
 * otherwise, and only renames are written (`--diff-filter=R`).
 */
import type { Git, RenameSection } from '../ports/git.js';
import { CANONICAL_CONFIG, CANONICAL_DIFF_FLAGS } from './canonical-diff.js';
import { BARE, type CommonDir, pinAttributes } from './common-dir.js';
import { plainPath } from './diff-parse.js';
import { diffSections, sectionStarts, withRenames } from './diff-sections.js';
import { assertRev, explainFailure } from './revs.js';
import type { GitRunner } from './run.js';

/**
 * git's own bound on inexact rename detection (`diff.renameLimit`'s default),
 * pinned: past it git pairs nothing inexactly, and the files stay whole.
 */
export const RENAME_LIMIT = 1000;

/** The canonical diff's flags with git's rename detection in place of `--no-renames`, renames only. */
const RENAME_FLAGS: readonly string[] = CANONICAL_DIFF_FLAGS.filter((f) => f !== '--binary').flatMap((f) =>
  f === '--no-renames' ? ['--find-renames=50%', `-l${RENAME_LIMIT}`, '--diff-filter=R'] : [f],
);

export function renameOps(run: GitRunner, commonDir: CommonDir): Pick<Git, 'promptSections'> {
  async function renameSections(repo: string, base: string, head: string, paths: readonly string[]) {
    assertRev(repo, base);
    assertRev(repo, head);
    const args = [
      ...BARE,
      ...CANONICAL_CONFIG,
      ...pinAttributes(base),
      ...RENAME_FLAGS,
      base,
      head,
      '--',
      ...paths.map((p) => `:(literal)${p}`),
    ];
    const res = await run.exec(await commonDir(repo), args);
    if (res.code !== 0) throw await explainFailure(run, repo, [base, head], run.failure(repo, args, res));
    return renamesOf(res.stdout.toString('utf8'));
  }

  return {
    async promptSections(repo, base, head, diff, pieceOver, asciiStarts, leavesOut) {
      const sections = diffSections(diff, pieceOver, asciiStarts, leavesOut);
      const lone = sections.filter((s) => s.lone !== undefined);
      const added = lone.filter((s) => s.lone === 'new').length;
      const deleted = lone.length - added;
      // Nothing to pair, or more than git would pair inexactly anyway: no process.
      if (added === 0 || deleted === 0 || added > RENAME_LIMIT || deleted > RENAME_LIMIT) return sections;
      const renames = await renameSections(
        repo,
        base,
        head,
        lone.map((s) => s.path),
      );
      return withRenames(sections, renames, pieceOver);
    },
  };
}

/** The sections of a `--diff-filter=R` diff, each with the two paths its `rename` lines name. */
export function renamesOf(text: string): RenameSection[] {
  const starts = sectionStarts(text);
  const out: RenameSection[] = [];
  starts.forEach((start, i) => {
    const section = text.slice(start, starts[i + 1] ?? text.length);
    const from = /\nrename from (.*)\n/.exec(section)?.[1];
    const to = /\nrename to (.*)\n/.exec(section)?.[1];
    if (from !== undefined && to !== undefined)
      out.push({ from: plainPath(from), to: plainPath(to), text: section });
  });
  return out;
}
