import { resolve } from 'node:path';
import { UsageError } from '../../core/errors.js';
import { createGit } from '../../git/index.js';
import { composeDeps, openRepoStore, systemClock } from '../../loop/compose.js';
import { runWorker } from '../../loop/operations.js';
import { StorePatience, type StoreWaitEvents } from '../../loop/store-patience.js';
import type { Command } from '../io.js';
import { progressPrinter } from '../progress.js';
import { triggeredPublisher } from '../publish-triggered.js';

interface Opts {
  repo?: string;
  store?: string;
  concurrency: string;
  exitWhenIdle?: boolean;
  leaseSeconds?: string;
  storePatience: string;
  requireConfined?: boolean;
  json?: boolean;
  apiUrl?: string;
  tokenEnv?: string;
}

/**
 * Claims admitted runs (SKIP LOCKED on PostgreSQL) and drives them. SIGTERM
 * finishes the current call, releases the lease and stops.
 */
const worker: Command<Opts> = async (_args, opts, io) => {
  const concurrency = Number(opts.concurrency);
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 64)
    throw new UsageError(`--concurrency must be 1..64, got "${opts.concurrency}"`);
  // Without the flag the lease TTL comes from REVLOOP_LEASE_MS, else 30 s (composeDeps).
  const leaseSeconds = opts.leaseSeconds === undefined ? undefined : Number(opts.leaseSeconds);
  if (leaseSeconds !== undefined && (!Number.isFinite(leaseSeconds) || leaseSeconds < 1))
    throw new UsageError(`--lease-seconds must be >= 1, got "${opts.leaseSeconds}"`);
  const patienceSeconds = Number(opts.storePatience);
  if (!Number.isFinite(patienceSeconds) || patienceSeconds < 0)
    throw new UsageError(`--store-patience must be a number of seconds >= 0, got "${opts.storePatience}"`);
  // Lines, never a live line: the worker's own output is a line per run, on a terminal too.
  const progress = progressPrinter(io, 'lines');
  const storeEvents: StoreWaitEvents = {
    onWait: (err) => {
      io.stderr(`revloop worker: ${err.message}; waiting up to ${patienceSeconds} s for it\n`);
      if (opts.json) io.stdout(`${JSON.stringify({ ledger: 'unavailable', detail: err.message })}\n`);
    },
    onBack: (ms) => {
      io.stderr(`revloop worker: the ledger is back after ${(ms / 1000).toFixed(1)} s\n`);
      if (opts.json) io.stdout(`${JSON.stringify({ ledger: 'ok', waitedMs: ms })}\n`);
    },
  };
  const root = await createGit().root(resolve(io.cwd, opts.repo ?? '.'));
  // A worker started while its ledger is away (a restart, a failover, a host booting before its
  // database) waits for it as a worker that already runs does, rather than exiting at once.
  const store = await new StorePatience(systemClock, patienceSeconds * 1000, storeEvents, io.stopSignal).ride(
    () => openRepoStore(root, opts.store, io.env),
  );
  const deps = composeDeps({
    store,
    repoRoot: root,
    env: io.env,
    signal: io.stopSignal,
    leaseTtlMs: leaseSeconds === undefined ? undefined : leaseSeconds * 1000,
    onEvent: progress.onEvent,
    requireConfined: opts.requireConfined,
    warn: (line) => io.stderr(line),
  });
  // Runs `revloop serve` admitted for a pull request are published to it as they end.
  const publisher = triggeredPublisher(io, { root, store, deps }, opts, Boolean(opts.json));
  const stopPublishing = new AbortController();
  const stopBoth = () => stopPublishing.abort();
  io.stopSignal.addEventListener('abort', stopBoth, { once: true });
  let publishing: Promise<void> = Promise.resolve();
  try {
    // Decided before a run is claimed: a required confinement that is missing claims nothing (exit 14).
    deps.confinement?.();
    publishing = publisher.every(1000, stopPublishing.signal);
    const res = await runWorker(deps, {
      concurrency,
      exitWhenIdle: Boolean(opts.exitWhenIdle),
      storePatienceMs: patienceSeconds * 1000,
      storeEvents,
      onError: (runId, err) => io.stderr(`revloop worker: run ${runId} ended unknown: ${err.message}\n`),
      onRun: (r) => {
        const line = {
          runId: r.run.id,
          status: r.run.status,
          outcome: r.run.outcome,
          stopReason: r.run.stopReason,
          reason: r.run.reason,
          detached: r.detached,
        };
        io.stdout(
          opts.json
            ? `${JSON.stringify(line)}\n`
            : `run ${r.run.id}: ${r.run.status}${r.run.outcome ? ` / ${r.run.outcome}` : ''}${r.detached ? ` (${r.detached})` : ''}\n`,
        );
      },
    });
    stopPublishing.abort();
    await publishing;
    // What ended last is published before an idle worker exits.
    if (!io.stopSignal.aborted) await publisher.sweep();
    if (!opts.json) io.stderr(`revloop worker: ${res.runs} run(s) driven, stopping\n`);
    return 0;
  } finally {
    stopPublishing.abort();
    await publishing;
    io.stopSignal.removeEventListener('abort', stopBoth);
    progress.done();
    await store.close();
  }
};

export default worker;
