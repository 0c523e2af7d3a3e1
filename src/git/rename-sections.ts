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
import { unquote } from './diff-parse.js';
import { diffSections, withRenames } from './diff-sections.js';
import { assertRev, explainFailure } from './revs.js';
import type { GitRunner } from './run.js';

/**
 * git's own bound on inexact rename detection (`diff.renameLimit`'s default),
 * pinned: past it git pairs nothing inexactly, and the files stay whole.
 */
export const RENAME_LIMIT = 1000;

const FILE_HEADER = 'diff --git ';

const RENAME_FLAGS: readonly string[] = [
  ...CANONICAL_DIFF_FLAGS.flatMap((f) =>
    f === '--no-renames'
      ? ['--find-renames=50%', `-l${RENAME_LIMIT}`, '--diff-filter=R']
      : f === '--binary'
        ? []
        : [f],
  ),
];

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
    async promptSections(repo, base, head, diff, pieceOver) {
      const sections = diffSections(diff, pieceOver);
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
  const out: RenameSection[] = [];
  const starts: number[] = [];
  if (text.startsWith(FILE_HEADER)) starts.push(0);
  for (let at = text.indexOf(`\n${FILE_HEADER}`); at !== -1; at = text.indexOf(`\n${FILE_HEADER}`, at + 1))
    starts.push(at + 1);
  starts.forEach((start, i) => {
    const section = text.slice(start, starts[i + 1] ?? text.length);
    const from = /\nrename from (.*)\n/.exec(section)?.[1];
    const to = /\nrename to (.*)\n/.exec(section)?.[1];
    if (from !== undefined && to !== undefined)
      out.push({ from: pathOf(from), to: pathOf(to), text: section });
  });
  return out;
}

const pathOf = (raw: string): string => (raw.startsWith('"') ? unquote(raw).value : raw);
