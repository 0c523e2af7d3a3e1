/**
 * `revloop eval import`: converts files a user downloaded from a public
 * benchmark into our corpus format. Nothing is fetched: each PR's repository
 * must be supplied as a clone under `--repos DIR` at `DIR/OWNER/REPO`, with
 * the PR's head at `refs/pull/N/head` (what GitHub serves; `git fetch origin
 * +refs/pull/N/head:refs/pull/N/head`). Its base is `refs/pull/N/base` when
 * the clone has one, else the merge base of the clone's HEAD and the PR's
 * head. A PR whose repository or head is not there is listed as not present
 * (in not-present.json and on the command's output), never guessed.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import type { ZodError } from 'zod';
import { RevloopError } from '../../core/errors.js';
import { writeFileAtomic } from '../../io/atomic-file.js';
import type { Git } from '../../ports/git.js';
import { corpusSchema, type EvalCase } from '../corpus-schema.js';
import { CorpusError } from '../errors.js';
import { caseIdOf, type ImportedPr } from './imported.js';
import { martianFileSchema, martianPrs } from './martian.js';

export const IMPORT_FORMATS = ['martian', 'swe-prbench'] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

export interface ImportOptions {
  format: ImportFormat;
  files: string[];
  out: string;
  repos?: string | undefined;
  git: Git;
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
  notPresent: NotPresent[];
  /** Where the not-present list was written (null when every PR was found). */
  notPresentFile: string | null;
}

const issueAt = (err: ZodError): string => {
  const i = err.issues[0];
  const path = (i?.path ?? []).map((k) => (typeof k === 'number' ? `[${k}]` : `.${String(k)}`)).join('');
  return `${path || '(top level)'}: ${i?.message ?? 'invalid'}`;
};

function readPrs(format: ImportFormat, file: string): ImportedPr[] {
  if (format === 'swe-prbench')
    throw new CorpusError(
      file,
      '--format swe-prbench is not built: the field names of its prs.jsonl and annotations/{task_id}_human.json could not be confirmed from the published files (docs/eval.md, "Importers")',
    );
  if (!existsSync(file)) throw new CorpusError(file, 'no such file');
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new CorpusError(file, `not JSON: ${(err as Error).message.split('\n')[0]}`);
  }
  const res = martianFileSchema.safeParse(raw);
  if (!res.success) throw new CorpusError(file, issueAt(res.error));
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
  const ref = `refs/pull/${pr.number}`;
  try {
    const head = pr.head ?? (await o.git.resolve(repo, `${ref}/head`));
    const base =
      pr.base ??
      (await o.git.resolve(repo, `${ref}/base`).catch(() => null)) ??
      (await o.git.mergeBase(repo, 'HEAD', head));
    for (const sha of [base, head])
      if (!(await o.git.commitExists(repo, sha)))
        return { problem: `repository not present: commit ${sha} is not in ${repo}` };
    return { repo, base, head };
  } catch (err) {
    if (!(err instanceof RevloopError)) throw err;
    return {
      problem: `repository not present: ${ref}/head is not in ${repo} (git fetch origin +${ref}/head:${ref}/head): ${err.message}`,
    };
  }
}

export async function importBenchmark(o: ImportOptions): Promise<ImportResult> {
  const out = resolve(o.out);
  // Every file is read and checked before anything is written.
  const prs = o.files.flatMap((f) => readPrs(o.format, f));
  const cases: EvalCase[] = [];
  const notPresent: NotPresent[] = [];
  const seen = new Set<string>();
  for (const pr of prs) {
    const id = caseIdOf(pr);
    if (seen.has(id)) throw new CorpusError(pr.url, `pull request listed twice (case id "${id}")`);
    seen.add(id);
    if (pr.defects.length === 0) {
      notPresent.push({ id, url: pr.url, problem: 'no golden comments: nothing to measure' });
      continue;
    }
    const at = await locate(o, pr);
    if ('problem' in at) notPresent.push({ id, url: pr.url, problem: at.problem });
    else
      cases.push({
        id,
        repo: relative(out, at.repo) || '.',
        base: at.base,
        head: at.head,
        upstream: pr.url,
        defects: pr.defects,
      });
  }
  let corpus: string | null = null;
  mkdirSync(out, { recursive: true });
  if (cases.length > 0) {
    const doc = corpusSchema.parse({
      version: 1,
      description: `Imported from ${o.format} (${o.files.length} file(s)): ${cases.length} of ${prs.length} pull requests; defects are prose, matched by the eval config's judge`,
      match: 'judge',
      cases,
    });
    corpus = join(out, 'corpus.json');
    writeFileAtomic(corpus, `${JSON.stringify(doc, null, 2)}\n`);
  }
  const notPresentFile = notPresent.length > 0 ? join(out, 'not-present.json') : null;
  if (notPresentFile) writeFileAtomic(notPresentFile, `${JSON.stringify(notPresent, null, 2)}\n`);
  return { corpus, cases: cases.length, notPresent, notPresentFile };
}
