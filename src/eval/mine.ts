/**
 * `revloop eval mine`: proposes cases from a repository's own history. A
 * commit whose message says fix or revert becomes a known-bug case (base =
 * the fix, head = the fix reverted in its source files, defects = the lines
 * the revert puts back); other commits touching source become clean cases.
 * Each case is two commits with no history (the trees are real), shipped
 * in one small bundle per repository. A team curates what this proposes.
 */
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { createEvalGit } from '../git/eval-case.js';
import { createGit } from '../git/index.js';
import { writeFileAtomic } from '../io/atomic-file.js';
import type { GitDiffs } from '../ports/git.js';
import type { Corpus, Defect, EvalCase } from './corpus-schema.js';
import { CorpusError } from './errors.js';
import { describeSourceRule, sourceRule } from './source-files.js';

export interface MineOptions {
  repo: string;
  since: string;
  /** The corpus directory: corpus.json and bundles/ (cases of the same id are replaced). */
  out: string;
  name?: string | undefined;
  url?: string | undefined;
  license?: string | undefined;
  licenseFile?: string | undefined;
  maxFixes?: number | undefined;
  maxClean?: number | undefined;
  /** Upstream commits to take no matter the caps (and to skip: `skip`). */
  skip?: readonly string[] | undefined;
  /** Globs of the files that count as source, instead of the language table (source-files.ts). */
  source?: readonly string[] | undefined;
}

export interface MineResult {
  fixes: number;
  clean: number;
  skipped: { sha: string; why: string }[];
  /** Null when nothing qualified: no corpus is written then, and `nothing` says why. */
  corpus: string | null;
  /** Commits after --since that were looked at. */
  commits: number;
  /** What counted as source, said when nothing qualified. */
  nothing: string | null;
}

const FIX = /\b(fix(e[sd]|ing)?|revert(s|ed)?|bug)\b/i;

export const isFixMessage = (subject: string) => FIX.test(subject);

export async function mineCases(o: MineOptions): Promise<MineResult> {
  const eg = createEvalGit();
  const git = createGit();
  const name = o.name ?? basename(o.repo.replace(/\/(\.git|repo)\/?$/, ''));
  const work = join(o.out, `.mine-${name}`);
  rmSync(work, { recursive: true, force: true });
  await eg.importSource(work, o.repo);
  let commits: Awaited<ReturnType<typeof eg.log>>;
  try {
    commits = await eg.log(o.repo, o.since);
  } catch (err) {
    throw new CorpusError(`--since ${o.since}`, (err as Error).message.split('\n')[0] ?? 'unknown revision');
  }
  const cases: EvalCase[] = [];
  const skipped: MineResult['skipped'] = [];
  const bundle = `bundles/${name}.bundle`;
  let fixes = 0;
  let clean = 0;
  const isSource = sourceRule(o.source);
  for (const c of commits.reverse()) {
    if (o.skip?.includes(c.sha.slice(0, 7))) continue;
    if (!c.parent) continue;
    const src = (await eg.touched(work, c.sha)).filter(isSource);
    if (src.length === 0) continue;
    const id = `${name}-${c.sha.slice(0, 7)}`;
    if (isFixMessage(c.subject)) {
      if (fixes >= (o.maxFixes ?? Number.POSITIVE_INFINITY)) continue;
      const base = await eg.commitWith(work, {
        tree: c.sha,
        parent: null,
        message: `${c.subject}\n\nupstream: ${c.sha}`,
      });
      const paths: Record<string, boolean> = {};
      for (const p of src) paths[p] = (await eg.lineCount(work, c.parent, p)) !== null;
      const head = await eg.commitWith(work, {
        tree: c.sha,
        parent: base,
        from: { rev: c.parent, paths },
        message: `Revert "${c.subject}"\n\nupstream: ${c.sha}`,
      });
      const defects = await revertDefects(git, eg, work, base, head, c.subject);
      if (defects.length === 0) {
        skipped.push({ sha: c.sha, why: 'the revert leaves no line at the head to point at' });
        continue;
      }
      await eg.setRef(work, `refs/cases/${id}/base`, base);
      await eg.setRef(work, `refs/cases/${id}/head`, head);
      cases.push({ id, bundle, base, head, upstream: c.sha, defects });
      fixes++;
    } else {
      if (clean >= (o.maxClean ?? Number.POSITIVE_INFINITY)) continue;
      const base = await eg.commitWith(work, { tree: c.parent, parent: null, message: `before ${c.sha}` });
      const head = await eg.commitWith(work, {
        tree: c.sha,
        parent: base,
        message: `${c.subject}\n\nupstream: ${c.sha}`,
      });
      await eg.setRef(work, `refs/cases/${id}/base`, base);
      await eg.setRef(work, `refs/cases/${id}/head`, head);
      cases.push({ id, bundle, base, head, upstream: c.sha, clean: true, description: c.subject });
      clean++;
    }
  }
  if (cases.length === 0) {
    // An empty corpus measures nothing: say what was looked for instead of writing one.
    rmSync(work, { recursive: true, force: true });
    const looked = `${commits.length} commit(s) after ${o.since}`;
    return {
      fixes,
      clean,
      skipped,
      corpus: null,
      commits: commits.length,
      nothing: `none of the ${looked} touched ${describeSourceRule(o.source)}`,
    };
  }
  mkdirSync(join(o.out, 'bundles'), { recursive: true });
  await eg.bundle(work, join(o.out, bundle), 'refs/cases/');
  rmSync(work, { recursive: true, force: true });
  const file = join(o.out, 'corpus.json');
  writeFileAtomic(file, `${JSON.stringify(merge(file, cases, o, bundle), null, 2)}\n`);
  return { fixes, clean, skipped, corpus: file, commits: commits.length, nothing: null };
}

/** The lines at the head that the fix had changed: what a reviewer should point at. */
async function revertDefects(
  git: GitDiffs,
  eg: ReturnType<typeof createEvalGit>,
  dir: string,
  base: string,
  head: string,
  subject: string,
): Promise<Defect[]> {
  const out: Defect[] = [];
  for (const f of await git.hunks(dir, base, head)) {
    const lines = await eg.lineCount(dir, head, f.path);
    if (!lines) continue;
    for (const h of f.hunks) {
      // A revert that only deletes (the fix only added) points at the lines around the gap.
      const line = Math.min(lines, Math.max(1, h.newStart));
      const endLine = h.newCount > 0 ? h.newStart + h.newCount - 1 : Math.min(lines, line + 1);
      out.push({
        file: f.path,
        line,
        endLine,
        description: `reintroduces what "${subject}" fixed`,
        severity: 'MAJOR',
      });
    }
  }
  return out;
}

function merge(file: string, cases: EvalCase[], o: MineOptions, bundle: string): Corpus {
  const prev: Corpus = existsSync(file)
    ? (JSON.parse(readFileSync(file, 'utf8')) as Corpus)
    : { version: 1, match: 'position', sources: [], cases: [] };
  const ids = new Set(cases.map((c) => c.id));
  const sources = prev.sources.filter((s) => s.bundle !== bundle);
  sources.push({
    bundle,
    url: o.url ?? relative(o.out, o.repo),
    license: o.license ?? 'UNKNOWN',
    ...(o.licenseFile ? { licenseFile: o.licenseFile } : {}),
  });
  return { ...prev, sources, cases: [...prev.cases.filter((c) => !ids.has(c.id)), ...cases] };
}
