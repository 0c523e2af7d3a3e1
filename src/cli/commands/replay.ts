import { loadConfigAt } from '../../config/loader.js';
import { UsageError } from '../../core/errors.js';
import { replayRun } from '../../core/replay.js';
import { sha256 } from '../../io/hash.js';
import { findRunOrThrow } from '../../loop/operations.js';
import { loadRunReport } from '../../loop/outputs/run-report-loader.js';
import { openRepo } from '../context.js';
import { Exit } from '../exit-codes.js';
import { type Command, printJson } from '../io.js';

interface Opts {
  repo?: string;
  store?: string;
  json?: boolean;
}

/** Recomputes every decision of a run from its recorded verdicts: 0 identical, 1 diverged. */
const replay: Command<Opts> = async (args, opts, io) => {
  const { store, deps, root } = await openRepo(io, opts, undefined, { readonly: true });
  try {
    const run = await findRunOrThrow(deps, args[0] ?? '');
    const report = await loadRunReport(store, run.id);
    if (!report) throw new UsageError(`run ${run.id} vanished`);
    const s = run.snapshot;
    const loaded = await loadConfigAt(
      deps.git,
      root,
      s.configFrom === 'head' ? s.head : s.base,
      s.configPath,
    );
    if (loaded.criteriaDigest !== s.criteriaDigest)
      throw new UsageError(`criteria at ${s.criteriaPath} no longer match the run's digest`);
    const res = replayRun(report, loaded.criteria, sha256);
    if (opts.json) printJson(io, res);
    else if (res.identical) {
      io.stdout(
        `replay ${run.id}: identical (${res.rounds} rounds, ${res.findingsChecked} findings, ${res.decisionsChecked} decisions recomputed)\n`,
      );
    } else {
      const d = res.divergence;
      io.stdout(
        `replay ${run.id}: DIVERGED at round ${d?.round} ${d?.stage}: ${d?.what}\n  recorded:   ${JSON.stringify(d?.recorded)}\n  recomputed: ${JSON.stringify(d?.recomputed)}\n`,
      );
    }
    return res.identical ? Exit.ok : Exit.findings;
  } finally {
    await store.close();
  }
};

export default replay;
