import { resolve } from 'node:path';
import type { ConfigSource } from '../../core/choices.js';
import { checkFileTarget } from '../../io/atomic-file.js';
import { reviewRevision } from '../../loop/operations.js';
import { loadOutputReport } from '../../loop/outputs/run-report-loader.js';
import { renderRunSummary } from '../../report/terminal.js';
import { applyRun } from '../apply.js';
import { openRepo, trustFrom } from '../context.js';
import { Exit } from '../exit-codes.js';
import { type Command, printJson } from '../io.js';
import { progressMode, progressPrinter } from '../progress.js';
import { type PublishFlags, publishOnReview } from '../publish-on-review.js';
import { rerunRequest } from '../rerun.js';
import { runJson } from '../run-json.js';

interface Opts extends PublishFlags {
  /** Publish the run to its pull request (github or gitlab) once it ends. */
  publish?: string;
  repo?: string;
  store?: string;
  base?: string;
  head: string;
  change?: string;
  config?: string;
  configFrom: ConfigSource;
  out?: string;
  apply?: boolean;
  requireConfined?: boolean;
  rerun?: boolean;
  reason?: string;
  json?: boolean;
}

/** Exit code of a run: 0 clear, 1 findings, 3 not completed (invariant 1: never 0 without clear). */
export const exitForRun = (status: string, outcome: string | null): number =>
  status === 'completed' ? (outcome === 'clear' ? Exit.ok : Exit.findings) : Exit.notCompleted;

const review: Command<Opts> = async (_args, opts, io) => {
  const rerun = rerunRequest(opts, io.env);
  // The forge is named before the loop spends anything: a missing token is a usage error now, not after the run.
  const publishTo = opts.publish ? publishOnReview.prepare(opts, io) : null;
  // A bad --out is said now, not after the whole loop ran.
  if (opts.out) checkFileTarget(resolve(io.cwd, opts.out));
  const progress = progressPrinter(io, progressMode(io, opts.json));
  const ctx = await openRepo(io, opts, progress.onEvent, {}, trustFrom(opts), {
    requireConfined: opts.requireConfined,
  });
  const { store, deps } = ctx;
  try {
    // Decided before anything is admitted: a required confinement that is missing refuses the run
    // (exit 14), and an unconfined one is said once, now.
    deps.confinement?.();
    const res = await reviewRevision(
      deps,
      {
        repoDir: opts.repo ? opts.repo : io.cwd,
        baseRef: opts.base,
        headRef: opts.head,
        change: opts.change,
        configPath: opts.config,
        configFrom: opts.configFrom,
        rerun,
      },
      opts.out,
    );
    progress.done();
    if (res.kind === 'deferred') {
      if (opts.json)
        printJson(io, {
          runId: null,
          status: 'deferred',
          outcome: null,
          stopReason: null,
          limit: res.limit,
          detail: res.detail,
          rounds: [],
          record: null,
        });
      else io.stderr(`revloop: admission deferred (${res.limit}): ${res.detail}\n`);
      return Exit.notCompleted;
    }
    const report = await loadOutputReport(store, res.run.id, io.env);
    if (!report) throw new Error('run vanished');
    const applied = opts.apply ? await applyRun(deps, res.run) : null;
    // A fork's read-only token or a refusing forge never changes the exit code: the run's outcome does.
    const published =
      publishTo && !res.detached ? await publishTo(ctx, report, Boolean(opts.json)) : undefined;
    if (opts.json)
      printJson(io, {
        ...runJson(report, res.recordPath),
        admitted: res.admitted,
        applied: applied?.message ?? null,
        ...(published ? { published } : {}),
      });
    else {
      if (res.admitted === 'existing')
        io.stdout(
          rerun
            ? `(run ${res.run.id} of this revision was still under way: it answers this rerun)\n`
            : `(this revision was already admitted as run ${res.run.id})\n`,
        );
      io.stdout(`${renderRunSummary(report)}\n`);
      if (applied?.ok) io.stdout(`${applied.message}\n`);
      if (res.detached)
        io.stdout(
          `stopped before the run ended (${res.detached}); resume with: revloop resume ${res.run.id}\n`,
        );
    }
    // Invariant 1 for a gate: a run that did not complete says why in one line on
    // stderr, so a CI log shows the reason even when stdout is parsed as JSON.
    if (res.run.status !== 'completed' && !res.detached) {
      const detail = (res.run.detail ?? '').split('\n')[0];
      // A new push is not a failure of this run: say what happened and how to review the new head.
      const next =
        res.run.reason === 'superseded'
          ? `; a new push moved the head: review the new revision with: ${io.self} review${opts.base ? ` --base ${opts.base}` : ''} --head ${opts.head}${opts.change ? ` --change ${opts.change}` : ''}`
          : '';
      io.stderr(
        `revloop: run ${res.run.id} ${res.run.status} (${res.run.reason ?? 'unknown'})${detail ? `: ${detail}` : ''}${next}\n`,
      );
    }
    const code = exitForRun(res.run.status, res.run.outcome);
    // `review --apply && git push` must not push a head without the fixes it was told to apply.
    if (applied && !applied.ok && code === Exit.ok) {
      io.stderr(`revloop: ${applied.message}\n`);
      return Exit.notApplied;
    }
    if (applied && !applied.ok && !opts.json) io.stdout(`${applied.message}\n`);
    return code;
  } finally {
    progress.done();
    await store.close();
  }
};

export default review;
