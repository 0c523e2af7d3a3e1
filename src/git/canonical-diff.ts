/**
 * The canonical diff: the one byte stream whose sha256 is a run's diff digest.
 * `verify` recomputes it on another machine, from another checkout, under
 * another user's git config, so every input that can change git's output is
 * pinned here.
 *
 * The exact command (run with cwd = the repository's common git dir):
 *
 *   git --git-dir=. --bare
 *       -c core.quotePath=true -c diff.suppressBlankEmpty=false
 *       -c core.attributesFile=/dev/null -c attr.tree=<the empty tree>
 *     diff --no-color --no-ext-diff --no-textconv --binary --full-index
 *       --no-renames --diff-algorithm=myers --indent-heuristic -U3
 *       --inter-hunk-context=0 --src-prefix=a/ --dst-prefix=b/ --no-relative
 *       --submodule=short --ignore-submodules=none -O/dev/null
 *       BASE HEAD --
 *
 * Why each part:
 * - `--bare` from the git dir: git reads `.gitattributes` from the worktree
 *   (or index), which differs between checkouts; attributes decide whether a
 *   file is binary and what its hunk headers' function context is. And
 *   `attr.tree` pinned to the empty tree: git 2.43 to 2.45 read attributes
 *   from HEAD in a bare repository, and git 2.43+ honours a configured
 *   `attr.tree`, so the change itself could mark its code `binary` and hide it
 *   (see pinAttributes). What is left is `$GIT_DIR/info/attributes` and the
 *   system attributes file, which no change can write (known residuals).
 * - Config that changes a patch without a command-line flag is set with `-c`:
 *   quoting of paths, blank context lines, the user's attributes file.
 * - Flags pin what config would otherwise choose: prefixes (diff.noprefix,
 *   diff.mnemonicPrefix), colour, renames (diff.renames), algorithm, context,
 *   hunk merging (diff.interHunkContext), file order (diff.orderFile),
 *   diff.relative, submodule format, external diff and textconv drivers.
 * - GIT_DIFF_OPTS and GIT_EXTERNAL_DIFF are removed from the environment (run.ts).
 * Remaining residuals: `diff.default.xfuncname` in config, and git versions
 * that change diff output itself.
 */
import { createHash } from 'node:crypto';
import type { DiffRead, Git } from '../ports/git.js';
import { BARE, type CommonDir, pinAttributes } from './common-dir.js';
import { CONTEXT_LINES } from './diff-parse.js';
import { DiffTextCollector } from './diff-text-collector.js';
import { DiffTooLargeError } from './errors.js';
import { assertRev, explainFailure } from './revs.js';
import type { GitRunner } from './run.js';

/** Global options before `diff`, after `--git-dir=. --bare`. */
export const CANONICAL_CONFIG: readonly string[] = [
  '-c',
  'core.quotePath=true',
  '-c',
  'diff.suppressBlankEmpty=false',
  '-c',
  'core.attributesFile=/dev/null',
];

/** `diff` and its flags, without the two revisions. */
export const CANONICAL_DIFF_FLAGS: readonly string[] = [
  'diff',
  '--no-color',
  '--no-ext-diff',
  '--no-textconv',
  '--binary',
  '--full-index',
  '--no-renames',
  '--diff-algorithm=myers',
  '--indent-heuristic',
  `-U${CONTEXT_LINES}`,
  '--inter-hunk-context=0',
  '--src-prefix=a/',
  '--dst-prefix=b/',
  '--no-relative',
  '--submodule=short',
  '--ignore-submodules=none',
  '-O/dev/null',
];

/** The full argument list (after `git -C <common git dir>`). */
export function canonicalDiffArgs(base: string, head: string): string[] {
  return [...BARE, ...CANONICAL_CONFIG, ...pinAttributes(base), ...CANONICAL_DIFF_FLAGS, base, head, '--'];
}

export function canonicalDiffOps(
  run: GitRunner,
  commonDir: CommonDir,
  /** The most bytes of text a read keeps (default: the longest string the runtime holds); tests lower it. */
  maxTextBytes?: number,
): Pick<Git, 'diffDigest' | 'diffText' | 'diffRead'> {
  /**
   * The one read of the canonical diff, streamed: its digest, and its text as
   * prompts carry it (binary-patches.ts) while the diff stays within
   * `keepUpTo` bytes (null past it). With `stopPast`
   * the read ends there instead (`cut`, no digest): a caller that
   * only wants text within a limit does not wait for the rest of a huge diff.
   */
  async function read(
    repo: string,
    base: string,
    head: string,
    keepUpTo: number,
    stopPast: boolean,
    leavesOut?: (path: string) => boolean,
  ): Promise<{ cut: true } | ({ cut: false } & DiffRead)> {
    assertRev(repo, base);
    assertRev(repo, head);
    const dir = await commonDir(repo);
    const args = canonicalDiffArgs(base, head);
    const hash = createHash('sha256');
    let text: DiffTextCollector | null = new DiffTextCollector({ leavesOut, maxTextBytes });
    let size = 0;
    const res = await run.stream(dir, args, (c) => {
      size += c.length;
      if (size > keepUpTo) {
        if (stopPast) return false;
        text = null;
      } else text?.push(c);
      hash.update(c);
      return true;
    });
    if (res.stopped) return { cut: true };
    if (res.code !== 0) throw await explainFailure(run, repo, [base, head], run.failure(repo, args, res));
    return { cut: false, digest: hash.digest('hex'), ...(text?.finish() ?? { text: null }) };
  }

  // Without stopPast a read is never cut.
  async function whole(
    repo: string,
    base: string,
    head: string,
    keepUpTo: number,
    leavesOut?: (path: string) => boolean,
  ) {
    const r = await read(repo, base, head, keepUpTo, false, leavesOut);
    if (r.cut) throw new Error('unreachable: a read without stopPast was cut');
    return r;
  }

  return {
    async diffDigest(repo, base, head) {
      return (await whole(repo, base, head, -1)).digest;
    },

    async diffRead(repo, base, head, maxBytes, leavesOut) {
      const { cut: _, ...read } = await whole(repo, base, head, maxBytes, leavesOut);
      return read;
    },

    async diffText(repo, base, head, maxBytes) {
      const r = await read(repo, base, head, maxBytes, true);
      if (r.cut || r.text === null) throw new DiffTooLargeError(base, head, maxBytes);
      return r.text;
    },
  };
}
