import { existsSync } from 'node:fs';
import { hostname } from 'node:os';
import { UsageError } from '../../core/errors.js';
import type { RunRow } from '../../core/ledger.js';
import { rerunPhrase } from '../../core/run-report.js';
import { isTerminal } from '../../core/types.js';
import { FileWriteError } from '../../io/errors.js';
import { pidAlive } from '../../io/pid.js';
import type { LoopDeps } from '../../loop/deps.js';
import { findRunOrThrow } from '../../loop/operations.js';
import { loadOutputReport } from '../../loop/outputs/run-report-loader.js';
import { recordFromLedger } from '../../loop/outputs/write-record.js';
import { recordPathFor } from '../../record/write.js';
import { renderRunSummary } from '../../report/terminal.js';
import { openRepo } from '../context.js';
import { type CliIO, type Command, printJson } from '../io.js';
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

/**
 * Why a `running` run has nobody running it, or null: its lease lapsed, or
 * its owner was a process on this host that no longer exists (a Ctrl-C'd or
 * killed review). The ledger still says `running`; what runs it is not there.
 */
function ownerGone(run: RunRow, now: number): string | null {
  if (run.status !== 'running') return null;
  const o = run.leaseOwner;
  if (!o) return 'no live owner: nobody holds its lease';
  if (o.host === hostname() && !pidAlive(o.pid)) return `no live owner: process ${o.pid} on ${o.host} exited`;
  if ((run.leaseExpiresAt ?? 0) <= now)
    return `no live owner: the lease of process ${o.pid} on ${o.host} lapsed at ${new Date(run.leaseExpiresAt ?? 0).toISOString()}`;
  return null;
}

/**
 * A completed run whose signed record is not on this machine: its writer died
 * between the ledger's end and the file, or it was written on another machine.
 */
function recordMissing(run: RunRow, repoRoot: string): boolean {
  // Only this clone's path counts: the one the ledger names may be another machine's.
  return run.status === 'completed' && !existsSync(recordPathFor(repoRoot, run.id));
}

/**
 * Writes here the records the ledger holds of the completed runs whose record
 * is not on this machine; returns the runs whose record the ledger lacks too
 * (`resume` signs and writes those).
 */
async function writeMissingRecords(
  deps: Pick<LoopDeps, 'store' | 'repoRoot'>,
  io: Pick<CliIO, 'stderr'>,
  runs: RunRow[],
  written: (run: RunRow, path: string) => void,
): Promise<RunRow[]> {
  const lacking: RunRow[] = [];
  for (const run of runs.filter((r) => recordMissing(r, deps.repoRoot))) {
    // A file that cannot be written here (a full disk) is said, and the run stays named as lacking it.
    const path = await recordFromLedger(deps, run.id).catch((err: unknown) => {
      if (!(err instanceof FileWriteError)) throw err;
      io.stderr(`revloop status: ${err.message}\n`);
      return null;
    });
    if (path) written(run, path);
    else lacking.push(run);
  }
  return lacking;
}

const status: Command<Opts> = async (args, opts, io) => {
  const limit = Number(opts.limit);
  if (!Number.isInteger(limit) || limit < 1)
    throw new UsageError(`--limit must be a positive integer, got "${opts.limit}"`);
  const { store, deps } = await openRepo(io, opts, undefined, { readonly: true });
  try {
    if (args[0]) {
      const run = await findRunOrThrow(deps, args[0]);
      const report = await loadOutputReport(store, run.id, io.env);
      if (!report) throw new UsageError(`run ${args[0]} vanished`);
      const here = recordPathFor(deps.repoRoot, run.id);
      let recordPath = existsSync(here) ? here : run.recordPath;
      let note = '';
      const lacking = await writeMissingRecords(deps, io, [run], (_, path) => {
        recordPath = path;
        note = `its signed record was written here from the ledger: ${path}\n`;
      });
      if (opts.json) printJson(io, runJson(report, recordPath));
      else {
        io.stdout(`${renderRunSummary({ ...report, run: { ...report.run, recordPath } })}\n${note}`);
        const gone = ownerGone(run, deps.clock.now());
        if (gone) io.stdout(`${gone}; resume it with: ${io.self} resume ${run.id}\n`);
        else if (lacking.length > 0)
          io.stdout(`its signed record is not on this machine; write it with: ${io.self} resume ${run.id}\n`);
        else if (!isTerminal(run.status) && run.leaseOwner) {
          io.stdout(
            `held by process ${run.leaseOwner.pid} on ${run.leaseOwner.host}, lease until ${new Date(run.leaseExpiresAt ?? 0).toISOString()}\n`,
          );
        }
      }
      return 0;
    }
    const runs = await store.listRuns({ limit });
    const written: string[] = [];
    const lacking = new Set(
      (
        await writeMissingRecords(deps, io, runs, (r, path) =>
          written.push(`run ${r.id}: signed record written here from the ledger: ${path}\n`),
        )
      ).map((r) => r.id),
    );
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
          rerun: r.rerun,
          ownerGone: ownerGone(r, deps.clock.now()) !== null,
          recordMissing: lacking.has(r.id),
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
      r.stopReason ?? r.reason ?? (ownerGone(r, now) ? 'no live owner' : '-'),
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
    for (const r of runs) if (r.rerun) io.stdout(`run ${r.id}: ${rerunPhrase(r.rerun)}\n`);
    for (const r of runs.filter((x) => ownerGone(x, now)))
      io.stdout(`run ${r.id} has no live owner; resume it with: ${io.self} resume ${r.id}\n`);
    for (const line of written) io.stdout(line);
    for (const r of runs.filter((x) => lacking.has(x.id)))
      io.stdout(
        `run ${r.id} completed without its signed record here; write it with: ${io.self} resume ${r.id}\n`,
      );
    return 0;
  } finally {
    await store.close();
  }
};

export default status;
