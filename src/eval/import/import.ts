/**
 * `revloop eval import`: converts files a user downloaded from a public
 * benchmark into our corpus format. Nothing is fetched: each PR's repository
 * must be supplied as a clone under `--repos DIR` at `DIR/OWNER/REPO`. When
 * the file names the commits (SWE-PRBench) those must be in the clone; when
 * it does not (Martian), the PR's head is `refs/pull/N/head` (what GitHub
 * serves; `git fetch origin +refs/pull/N/head:refs/pull/N/head`) and its base
 * `refs/pull/N/base` when the clone has one, else the merge base of the
 * clone's HEAD and the PR's head. A PR whose repository or commits are not
 * there is listed as not present (in not-present.json and on the command's
 * output), never guessed.
 */
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { RevloopError } from '../../core/errors.js';
import { writeFileAtomic } from '../../io/atomic-file.js';
import type { GitBlobs, GitRevisions } from '../../ports/git.js';
import { corpusSchema, defectsOf, type EvalCase, isLocated } from '../corpus-schema.js';
import { CorpusError } from '../errors.js';
import { type ImportedPr, zodIssueAt } from './imported.js';
import { martianFileSchema, martianPrs } from './martian.js';
import { placeDefects } from './place-defects.js';
import { readJsonFile } from './read-json.js';
import { inSplit, readSplit } from './split.js';
import { sweprbenchPrs } from './swe-prbench.js';

export const IMPORT_FORMATS = ['martian', 'swe-prbench'] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

/** What each benchmark calls its known defects, for the line saying a PR has none. */
const GROUND_TRUTH: Record<ImportFormat, string> = {
  martian: 'golden comments',
  'swe-prbench': 'ground-truth comments (substantive_comment_ids, else is_initiating_comment)',
};

export interface ImportOptions {
  format: ImportFormat;
  files: string[];
  out: string;
  repos?: string | undefined;
  /** SWE-PRBench: import only the PRs of this published split (split.ts). */
  split?: string | undefined;
  git: GitRevisions & GitBlobs;
}

export interface NotPresent {
  id: string;
  url: string;
  problem: string;
}

export interface ImportResult {
  /** The corpus written, or null when no PR had its repository. */
  corpus: string | null;
  cases: number;
  /** Defects of the written cases that name no line, so need the eval config's judge. */
  proseDefects: number;
  notPresent: NotPresent[];
  /** Where the not-present list was written (null when every PR was found). */
  notPresentFile: string | null;
}

/** Each format's reader checks its files' published shape and throws a CorpusError (exit 2) on the first miss. */
function readPrs(format: ImportFormat, file: string): ImportedPr[] {
  if (format === 'swe-prbench') return sweprbenchPrs(file);
  const res = martianFileSchema.safeParse(readJsonFile(file));
  if (!res.success) throw new CorpusError(file, zodIssueAt(res.error));
  return martianPrs(res.data);
}

async function locate(
  o: ImportOptions,
  pr: ImportedPr,
): Promise<{ repo: string; base: string; head: string } | { problem: string }> {
  const where = `${pr.owner}/${pr.repo}`;
  if (!o.repos)
    return { problem: `repository not present: no --repos DIR given (expected DIR/${where}, a clone)` };
  const repo = join(resolve(o.repos), pr.owner, pr.repo);
  if (!existsSync(repo)) return { problem: `repository not present: no clone at ${repo}` };
  const ref = pr.number === null ? null : `refs/pull/${pr.number}`;
  const fetchHint = ref ? ` (git fetch origin +${ref}/head:${ref}/head)` : '';
  try {
    const head = pr.head ?? (ref ? await o.git.resolve(repo, `${ref}/head`) : null);
    if (head === null)
      return { problem: 'repository not present: the file names no head commit and no PR number' };
    const base =
      pr.base ??
      (ref ? await o.git.resolve(repo, `${ref}/base`).catch(() => null) : null) ??
      (await o.git.mergeBase(repo, 'HEAD', head));
    for (const sha of [base, head])
      if (!(await o.git.commitExists(repo, sha)))
        return { problem: `repository not present: commit ${sha} is not in ${repo}${fetchHint}` };
    return { repo, base, head };
  } catch (err) {
    if (!(err instanceof RevloopError)) throw err;
    return {
      problem: `repository not present: ${ref ?? 'the PR'}/head is not in ${repo}${fetchHint}: ${err.message}`,
    };
  }
}

export async function importBenchmark(o: ImportOptions): Promise<ImportResult> {
  const out = resolve(o.out);
  // Every file is read and checked before anything is written.
  const all = o.files.flatMap((f) => readPrs(o.format, f));
  const prs = o.split ? inSplit(all, readSplit(o.split), o.split) : all;
  const cases: EvalCase[] = [];
  const notPresent: NotPresent[] = [];
  const seen = new Set<string>();
  let unplaced = 0;
  for (const pr of prs) {
    const { id } = pr;
    if (seen.has(id)) throw new CorpusError(pr.url, `pull request listed twice (case id "${id}")`);
    seen.add(id);
    if (pr.defects.length === 0) {
      notPresent.push({ id, url: pr.url, problem: `no ${GROUND_TRUTH[o.format]}: nothing to measure` });
      continue;
    }
    const at = await locate(o, pr);
    if ('problem' in at) {
      notPresent.push({ id, url: pr.url, problem: at.problem });
      continue;
    }
    const placed = await placeDefects(o.git, at.repo, at.head, pr.defects);
    unplaced += placed.unplaced;
    cases.push({
      id,
      repo: relative(out, at.repo) || '.',
      base: at.base,
      head: at.head,
      upstream: pr.url,
      defects: placed.defects,
    });
  }
  const proseDefects = cases.flatMap((c) => defectsOf(c)).filter((d) => !isLocated(d)).length;
  let corpus: string | null = null;
  mkdirSync(out, { recursive: true });
  if (cases.length > 0) {
    const allProse = o.format === 'martian';
    const doc = corpusSchema.parse({
      version: 1,
      description: `Imported from ${o.format} (${o.files.length} file(s)): ${cases.length} of ${prs.length} pull requests; ${
        allProse
          ? "defects are prose, matched by the eval config's judge"
          : `${proseDefects} defect(s) without a line at the head (${unplaced} of them moved off the head's lines) matched by the eval config's judge, the rest by position`
      }`,
      match: allProse ? 'judge' : 'position',
      cases,
    });
    corpus = join(out, 'corpus.json');
    writeFileAtomic(corpus, `${JSON.stringify(doc, null, 2)}\n`);
  }
  // What an earlier import into the same --out left must not outlive this one's answer:
  // an old corpus.json beside "no corpus written", or an old not-present list beside a complete import.
  if (corpus === null) rmSync(join(out, 'corpus.json'), { force: true });
  const notPresentFile = notPresent.length > 0 ? join(out, 'not-present.json') : null;
  if (notPresentFile) writeFileAtomic(notPresentFile, `${JSON.stringify(notPresent, null, 2)}\n`);
  else rmSync(join(out, 'not-present.json'), { force: true });
  return { corpus, cases: cases.length, proseDefects, notPresent, notPresentFile };
}
