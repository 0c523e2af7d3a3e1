/**
 * What changed between two revisions, file by file and hunk by hunk, from
 * one zero-context patch per pair of revisions. Unlike the canonical diff it
 * follows renames (-M): a finding on a moved file should keep its place.
 */
import type { Git } from '../ports/git.js';
import { BARE, type CommonDir, pinAttributes } from './common-dir.js';
import { changedFilesOf, type PatchFile, parsePatch } from './diff-parse.js';
import { assertRev, explainFailure } from './revs.js';
import type { GitRunner } from './run.js';

/** After `...BARE` and the pinned attributes (common-dir.ts). */
const HUNK_ARGS: readonly string[] = [
  '-c',
  'core.quotePath=false',
  '-c',
  'core.attributesFile=/dev/null',
  'diff',
  '--no-color',
  '--no-ext-diff',
  '--no-textconv',
  '-U0',
  '--inter-hunk-context=0',
  '--find-renames',
  '--diff-algorithm=myers',
  '--indent-heuristic',
  '--src-prefix=a/',
  '--dst-prefix=b/',
  '--no-relative',
  '--submodule=short',
  '-O/dev/null',
];

const FULL_SHA = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;
const CACHE_SIZE = 16;

export function changeOps(run: GitRunner, commonDir: CommonDir): Pick<Git, 'changedFiles' | 'hunks'> {
  // The loop asks for the hunks of the same pair of commits several times a
  // round; the patch between two full shas never changes, so keep the last few parsed.
  const cache = new Map<string, Promise<PatchFile[]>>();

  async function patchFiles(
    repo: string,
    base: string,
    head: string,
    paths: readonly string[] = [],
  ): Promise<PatchFile[]> {
    assertRev(repo, base);
    assertRev(repo, head);
    // Literal pathspecs: a path holding `*` or `?` names that one file only.
    const spec = paths.map((p) => `:(literal)${p}`);
    const args = [...BARE, ...pinAttributes(base), ...HUNK_ARGS, base, head, '--', ...spec];
    const res = await run.exec(await commonDir(repo), args);
    if (res.code !== 0) throw await explainFailure(run, repo, [base, head], run.failure(repo, args, res));
    return parsePatch(res.stdout.toString('utf8'));
  }

  function cachedPatchFiles(repo: string, base: string, head: string): Promise<PatchFile[]> {
    if (!FULL_SHA.test(base) || !FULL_SHA.test(head)) return patchFiles(repo, base, head);
    const key = `${repo}\0${base}\0${head}`;
    let p = cache.get(key);
    if (p) {
      cache.delete(key); // re-insert: most recently used last
    } else {
      p = patchFiles(repo, base, head);
      p.catch(() => cache.delete(key));
    }
    cache.set(key, p);
    if (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value as string);
    return p;
  }

  return {
    // The file list is the patch's headers: one git process answers both questions.
    async changedFiles(repo, base, head, paths) {
      // Only some paths asked (is a protected file edited?): a patch of those alone, not
      // the whole change's, which on a 20 MB change was a second full diff read, parsed and kept.
      if (paths) return paths.length === 0 ? [] : changedFilesOf(await patchFiles(repo, base, head, paths));
      return changedFilesOf(await cachedPatchFiles(repo, base, head));
    },

    async hunks(repo, base, head) {
      const files = await cachedPatchFiles(repo, base, head);
      return files.map(({ added: _a, deleted: _d, ...f }) => ({ ...f, hunks: [...f.hunks] }));
    },
  };
}
