import { UsageError } from '../../core/errors.js';
import { isTerminal } from '../../core/types.js';
import { findRunOrThrow } from '../../loop/operations.js';
import { loadRunReport } from '../../loop/run-report-loader.js';
import { renderRunSummary } from '../../report/terminal.js';
import { openRepo } from '../context.js';
import { type Command, printJson } from '../io.js';
import { runJson } from '../run-json.js';
import { terminalSafe } from '../terminal-safe.js';

interface Opts {
  repo?: string;
  store?: string;
  limit: string;
  json?: boolean;
}

const age = (ms: number): string => {
  const s = Math.max(0, Math.round(ms / 1000));
  return s < 120
    ? `${s}s`
    : s < 7200
      ? `${Math.round(s / 60)}m`
      : s < 172800
        ? `${Math.round(s / 3600)}h`
        : `${Math.round(s / 86400)}d`;
};

const status: Command<Opts> = async (args, opts, io) => {
  const limit = Number(opts.limit);
  if (!Number.isInteger(limit) || limit < 1)
    throw new UsageError(`--limit must be a positive integer, got "${opts.limit}"`);
  const { store, deps } = await openRepo(io, opts);
  try {
    if (args[0]) {
      const run = await findRunOrThrow(deps, args[0]);
      const report = await loadRunReport(store, run.id);
      if (!report) throw new UsageError(`run ${args[0]} vanished`);
      if (opts.json) printJson(io, runJson(report, run.recordPath));
      else {
        io.stdout(`${renderRunSummary(report)}\n`);
        if (!isTerminal(run.status) && run.leaseOwner) {
          io.stdout(
            `held by process ${run.leaseOwner.pid} on ${run.leaseOwner.host}, lease until ${new Date(run.leaseExpiresAt ?? 0).toISOString()}\n`,
          );
        }
      }
      return 0;
    }
    const runs = await store.listRuns({ limit });
    if (opts.json) {
      printJson(io, {
        runs: runs.map((r) => ({
          runId: r.id,
          change: r.snapshot.change,
          head: r.snapshot.head,
          status: r.status,
          outcome: r.outcome,
          stopReason: r.stopReason,
          reason: r.reason,
          rounds: r.roundsDone,
          costUsd: r.costUsd,
          createdAt: new Date(r.createdAt).toISOString(),
        })),
      });
      return 0;
    }
    if (runs.length === 0) {
      io.stdout('no runs yet: start one with `revloop review` (or try `revloop demo`)\n');
      return 0;
    }
    const now = deps.clock.now();
    const rows = runs.map((r) => [
      r.id,
      // Escaped before measuring, so the columns line up with what is printed.
      terminalSafe(r.snapshot.change).slice(0, 28),
      r.status,
      r.outcome ?? '-',
      r.stopReason ?? r.reason ?? '-',
      String(r.roundsDone),
      `$${r.costUsd.toFixed(3)}`,
      age(now - r.createdAt),
    ]);
    const head = ['RUN', 'CHANGE', 'STATUS', 'OUTCOME', 'REASON', 'ROUNDS', 'COST', 'AGE'];
    const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
    for (const r of [head, ...rows])
      io.stdout(
        `${r
          .map((c, i) => c.padEnd(widths[i] ?? 0))
          .join('  ')
          .trimEnd()}\n`,
      );
    return 0;
  } finally {
    await store.close();
  }
};

export default status;
