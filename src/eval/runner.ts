/**
 * Runs a corpus through revloop's own loop: each case is brought into a
 * scratch repository, the eval config is committed on top of its base, and
 * `reviewRevision` (what `revloop review` runs) admits and drives it on a
 * scratch ledger. Round-1 findings are then matched to the case's defects.
 * A case that cannot run, or whose run does not complete, is listed as not
 * run with the field that was wrong; it is never scored.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { RevloopError } from '../core/errors.js';
import { createEvalGit, type EvalGit } from '../git/eval-case.js';
import { composeDeps } from '../loop/compose.js';
import { reviewRevision } from '../loop/operations.js';
import { loadRunReport } from '../loop/outputs/run-report-loader.js';
import type { Store } from '../ports/store.js';
import type { CaseResult, EvalFinding, RanCase } from './case-result.js';
import { caseSource, type LoadedCorpus } from './corpus-load.js';
import { type Defect, defectsOf, type EvalCase, isClean, isLocated } from './corpus-schema.js';
import { CaseError, JudgeReplyError } from './errors.js';
import type { EvalConfig } from './eval-config.js';
import { type Judge, judgeCase } from './judge.js';
import { assignJudged, judgePairs } from './judge-match.js';
import { type Matcher, matchFindings } from './match.js';

export interface RunCorpusOptions {
  loaded: LoadedCorpus;
  config: EvalConfig;
  /** Scratch directory: one repository per case. */
  workDir: string;
  /** The scratch ledger every case's run is recorded in. */
  store: Store;
  window: number;
  env: NodeJS.ProcessEnv;
  signal?: AbortSignal | undefined;
  matcher?: Matcher | undefined;
  /** The eval config's judge, built once per side; null when it has none. */
  judge?: Judge | null | undefined;
  /** Cases run at once (default 1). */
  jobs?: number | undefined;
  now?: () => number;
  onCase?:
    | ((index: number, total: number, c: EvalCase, phase: 'start' | 'end', r?: CaseResult) => void)
    | undefined;
}

/** Commits the config on top of the base and replays the head onto it; checks the case first. */
export async function prepareCase(
  git: EvalGit,
  dir: string,
  source: { kind: 'repo' | 'bundle'; path: string },
  c: EvalCase,
  config: EvalConfig,
): Promise<{ base: string; head: string }> {
  try {
    await git.importSource(dir, source.path);
  } catch (err) {
    throw new CaseError(
      c.id,
      source.kind,
      `cannot read ${source.path}: ${(err as Error).message.split('\n')[0]}`,
    );
  }
  for (const field of ['base', 'head'] as const)
    if (!(await git.commitExists(dir, c[field])))
      throw new CaseError(c.id, field, `commit ${c[field]} is not in ${source.kind} ${source.path}`);
  for (const [i, d] of defectsOf(c).entries()) {
    // A prose defect names no file (or no line): the judge matches it, nothing here to check.
    if (d.file === undefined) continue;
    const lines = await git.lineCount(dir, c.head, d.file);
    if (lines === null)
      throw new CaseError(c.id, `defects[${i}].file`, `"${d.file}" is not a file at the head`);
    const last = d.endLine ?? d.line;
    if (last !== undefined && last > lines)
      throw new CaseError(
        c.id,
        `defects[${i}].${d.endLine === undefined ? 'line' : 'endLine'}`,
        `line ${last} is past the end of ${d.file} (${lines} lines at the head)`,
      );
  }
  const base = await git.commitWith(dir, {
    tree: c.base,
    parent: c.base,
    files: config.files,
    message: 'eval: the eval config',
  });
  const head = await git.commitWith(dir, {
    tree: c.head,
    parent: base,
    files: config.files,
    message: `eval: case ${c.id}`,
  });
  return { base, head };
}

const BLOCKING = new Set(['MAJOR', 'MODERATE']);

export async function runCase(o: RunCorpusOptions, c: EvalCase, index: number): Promise<CaseResult> {
  const now = o.now ?? Date.now;
  const started = now();
  const common = { id: c.id, clean: isClean(c), defects: defectsOf(c) };
  const judged = judgedDefects(o.loaded.corpus.match, common.defects);
  if (judged.length > 0 && !o.judge) {
    const field = o.loaded.corpus.match === 'judge' ? 'match' : `defects[${judged[0]}].line`;
    return {
      ...common,
      ran: false,
      field,
      error: `case ${c.id}: ${field}: ${field === 'match' ? 'the corpus says match: judge' : 'a defect without a line is matched by a judge'}, and --config has no judge: (docs/eval.md)`,
    };
  }
  const git = createEvalGit();
  const dir = join(o.workDir, `${String(index).padStart(3, '0')}-${c.id}`);
  mkdirSync(o.workDir, { recursive: true });
  let prepared: { base: string; head: string };
  try {
    prepared = await prepareCase(git, dir, caseSource(o.loaded, c), c, o.config);
  } catch (err) {
    if (err instanceof CaseError) return { ...common, ran: false, field: err.field, error: err.message };
    throw err;
  }
  const deps = composeDeps({ store: o.store, repoRoot: dir, env: o.env, signal: o.signal });
  let res: Awaited<ReturnType<typeof reviewRevision>>;
  try {
    res = await reviewRevision(deps, {
      repoDir: dir,
      baseRef: prepared.base,
      headRef: prepared.head,
      change: `eval/${c.id}`,
      configFrom: 'base',
    });
  } catch (err) {
    if (!(err instanceof RevloopError)) throw err;
    return { ...common, ran: false, field: 'run', error: `case ${c.id}: run: ${err.message}` };
  }
  if (res.kind === 'deferred')
    return { ...common, ran: false, field: 'run', error: `case ${c.id}: run: deferred (${res.limit})` };
  const run = res.run;
  if (run.status !== 'completed')
    return {
      ...common,
      ran: false,
      field: 'run',
      runId: run.id,
      error: `case ${c.id}: run: ${run.status} (${run.reason ?? 'unknown'})${run.detail ? `: ${run.detail.split('\n')[0]}` : ''}`,
    };
  const report = await loadRunReport(o.store, run.id);
  if (!report) throw new Error(`run ${run.id} vanished from the scratch ledger`);
  const findings: EvalFinding[] = report.findings
    .filter((f) => f.round === 1)
    .map((f) => {
      const refuted = f.refutation?.decision === 'refuted';
      return {
        reviewer: f.reviewer,
        severity: f.severity,
        file: f.reported.file,
        line: f.reported.line,
        endLine: f.reported.endLine,
        claim: f.reported.claim,
        refuted,
        blocking: BLOCKING.has(f.severity) && !refuted,
      };
    });
  const judgedSet = new Set(judged);
  // Position first (on the defects that have lines and are not the judge's), then the judge on the rest.
  const positional = matchAll(
    findings,
    common.defects.map((d, i) => (judgedSet.has(i) || !isLocated(d) ? null : d)),
    o.window,
    o.matcher ?? matchFindings,
  );
  let matches = positional;
  let judgedInfo = { pairs: 0, called: 0 };
  let judgeCost = 0;
  if (o.judge && judged.length > 0) {
    const pairs = judgePairs(findings, common.defects, judged, positional);
    try {
      const j = await judgeCase({
        judge: o.judge,
        store: o.store,
        hash: deps.hash,
        now,
        clock: deps.clock,
        random: deps.random,
        signal: o.signal,
        caseId: c.id,
        runId: run.id,
        base: prepared.base,
        head: prepared.head,
        repoDir: dir,
        findings,
        defects: common.defects,
        pairs,
      });
      matches = assignJudged(findings, j.yes, positional);
      judgedInfo = { pairs: pairs.length, called: j.called };
      judgeCost = j.costUsd;
    } catch (err) {
      if (!(err instanceof JudgeReplyError) && !(err instanceof RevloopError)) throw err;
      return { ...common, ran: false, field: 'judge', runId: run.id, error: err.message };
    }
  }
  const result: RanCase = {
    ...common,
    ran: true,
    runId: run.id,
    outcome: run.outcome,
    stopReason: run.stopReason ?? null,
    reviewers: o.config.reviewers,
    findings,
    rounds: report.rounds.length,
    costUsd: run.costUsd + judgeCost,
    // A verdict reused from an identical earlier call is recorded, but no call was made for it.
    calls: report.verdicts.filter((v) => !v.reusedFrom).length + judgedInfo.called,
    seconds: (now() - started) / 1000,
    matches,
    judged: judgedInfo,
  };
  return result;
}

/** Defects the judge decides: every one under `match: judge`, else those without a file and line. */
export function judgedDefects(match: 'position' | 'judge', defects: readonly Defect[]): number[] {
  return defects.flatMap((d, i) => (match === 'judge' || !isLocated(d) ? [i] : []));
}

type Located = { file: string; line: number; endLine?: number | undefined };

/**
 * Per reviewer, one-to-one; the result is indexed like `findings`. A null
 * defect (one the judge decides) is left out, and indices still name the
 * corpus's defects.
 */
export function matchAll(
  findings: readonly EvalFinding[],
  defects: readonly (Located | null)[],
  window: number,
  matcher: Matcher,
): (number | null)[] {
  const out: (number | null)[] = findings.map(() => null);
  const located = defects.flatMap((d, i) => (d ? [{ d, i }] : []));
  const names = [...new Set(findings.map((f) => f.reviewer))];
  for (const name of names) {
    const idx = findings.flatMap((f, i) => (f.reviewer === name ? [i] : []));
    for (const m of matcher(
      idx.map((i) => findings[i] as EvalFinding),
      located.map((x) => x.d),
      window,
    ))
      out[idx[m.finding] as number] = located[m.defect]?.i ?? null;
  }
  return out;
}

/**
 * Cases run `jobs` at a time (each in its own repository, one shared scratch
 * ledger); results stay in corpus order, so the report does not depend on timing.
 */
export async function runCorpus(o: RunCorpusOptions): Promise<CaseResult[]> {
  const cases = o.loaded.corpus.cases;
  const out: CaseResult[] = new Array(cases.length);
  let next = 0;
  const lane = async () => {
    for (let i = next++; i < cases.length; i = next++) {
      const c = cases[i] as EvalCase;
      if (o.signal?.aborted) {
        out[i] = {
          id: c.id,
          clean: isClean(c),
          defects: defectsOf(c),
          ran: false,
          field: 'run',
          error: `case ${c.id}: run: interrupted`,
        };
        continue;
      }
      o.onCase?.(i, cases.length, c, 'start');
      out[i] = await runCase(o, c, i);
      o.onCase?.(i, cases.length, c, 'end', out[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, o.jobs ?? 1) }, lane));
  return out;
}
