import { resolve } from 'node:path';
import { checkFileTarget } from '../../io/atomic-file.js';
import { resumeRun } from '../../loop/operations.js';
import { loadOutputReport } from '../../loop/outputs/run-report-loader.js';
import { renderRunSummary } from '../../report/terminal.js';
import { openRepo } from '../context.js';
import { type Command, printJson } from '../io.js';
import { progressMode, progressPrinter } from '../progress.js';
import { runJson } from '../run-json.js';
import { exitForRun } from './review.js';

interface Opts {
  repo?: string;
  store?: string;
  out?: string;
  requireConfined?: boolean;
  json?: boolean;
}

const resume: Command<Opts> = async (args, opts, io) => {
  // A bad --out is said now, not after the whole loop ran.
  if (opts.out) checkFileTarget(resolve(io.cwd, opts.out));
  const progress = progressPrinter(io, progressMode(io, opts.json));
  const { store, deps } = await openRepo(
    io,
    opts,
    progress.onEvent,
    {},
    {},
    {
      requireConfined: opts.requireConfined,
    },
  );
  try {
    // Decided before the run is taken over: a required confinement that is missing leaves it as it is (exit 14).
    deps.confinement?.();
    const res = await resumeRun(deps, args[0] ?? '', opts.out);
    progress.done();
    const report = await loadOutputReport(store, res.run.id, io.env);
    if (!report) throw new Error('run vanished');
    if (opts.json) printJson(io, runJson(report, res.recordPath));
    else {
      io.stdout(`${renderRunSummary(report)}\n`);
    }
    return exitForRun(res.run.status, res.run.outcome);
  } finally {
    progress.done();
    await store.close();
  }
};

export default resume;
