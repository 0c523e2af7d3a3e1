/**
 * What the commands do with the driver: review (admit, then run or join the
 * run of the same admission key), resume, and the worker's claim loop.
 */
import { existsSync } from 'node:fs';
import { hostname } from 'node:os';
import type { Lease, RunRow } from '../core/ledger.js';
import { unfinishedEnd } from '../core/run-state.js';
import { isTerminal } from '../core/types.js';
import { pidAlive } from '../io/pid.js';
import { recordPathFor } from '../record/write.js';
import { UnknownRunError } from '../store/errors.js';
import { type Admission, type AdmitRequest, admit } from './admission.js';
import type { LoopDeps } from './deps.js';
import { RunBusyError } from './errors.js';
import { writeRunOutputs, writeRunRecord } from './outputs/index.js';
import { type DriveOptions, type DriveResult, driveRun } from './run/index.js';
import {
  DEFAULT_STORE_PATIENCE_MS,
  isLedgerFault,
  isTransientStoreFault,
  StorePatience,
  type StoreWaitEvents,
} from './store-patience.js';

export type ReviewOutcome =
  | { kind: 'deferred'; limit: 'capacity' | 'cost'; detail: string }
  | {
      kind: 'run';
      admitted: 'created' | 'existing';
      run: RunRow;
      recordPath: string | null;
      detached: DriveResult['detached'];
    };

/**
 * Takes a run whose owner is gone: at once when the owner was a process on
 * this host that no longer exists, otherwise only once its lease expired.
 */
export async function takeOver(deps: LoopDeps, run: RunRow): Promise<Lease | null> {
  const lease = await deps.store.acquireLease(run.id, deps.owner, deps.leaseTtlMs);
  if (lease) return lease;
  const o = run.leaseOwner;
  if (o && o.host === hostname() && o.pid !== process.pid && !pidAlive(o.pid)) {
    return deps.store.acquireLease(run.id, deps.owner, deps.leaseTtlMs, run.fencingToken);
  }
  return null;
}

/**
 * A finished run's record on this clone: the one here, else written from the
 * ledger (the path the ledger names may be another machine's). One here whose
 * path the ledger never took (its writer died between the two) is written again.
 */
async function finishedRun(deps: LoopDeps, run: RunRow, out?: string): Promise<string | null> {
  if (run.status !== 'completed') return run.recordPath;
  const here = recordPathFor(deps.repoRoot, run.id);
  if (run.recordPath !== null && existsSync(here) && !out) return here;
  return writeRunOutputs(deps, run, out);
}

/** Runs a held-or-free run to its end, or waits for the live process that holds it. */
async function joinRun(
  deps: LoopDeps,
  first: RunRow,
  out?: string,
  admittedHere?: DriveOptions['admittedHere'],
): Promise<Omit<Extract<ReviewOutcome, { kind: 'run' }>, 'admitted'>> {
  let run = first;
  const giveUpAt = deps.clock.now() + (run.snapshot.budgets.wallSeconds + 60) * 1000;
  for (;;) {
    if (isTerminal(run.status))
      return { kind: 'run', run, recordPath: await finishedRun(deps, run, out), detached: null };
    const lease = await takeOver(deps, run);
    if (lease) {
      const r = await driveRun(deps, lease, { out, admittedHere });
      return { kind: 'run', run: r.run, recordPath: r.recordPath, detached: r.detached };
    }
    if (deps.signal?.aborted || deps.clock.now() > giveUpAt) {
      return { kind: 'run', run, recordPath: null, detached: deps.signal?.aborted ? 'signal' : null };
    }
    await deps.clock.sleep(500, deps.signal);
    run = (await deps.store.getRun(run.id)) ?? run;
  }
}

export async function reviewRevision(
  deps: LoopDeps,
  req: AdmitRequest,
  out?: string,
): Promise<ReviewOutcome & { admission?: Admission }> {
  const admission = await admit(deps, req);
  const r = admission.result;
  if (r.kind === 'deferred') return { kind: 'deferred', limit: r.limit, detail: r.detail, admission };
  const admittedHere = r.kind === 'created' ? admission : undefined;
  return { ...(await joinRun(deps, r.run, out, admittedHere)), admitted: r.kind, admission };
}

export async function findRunOrThrow(deps: Pick<LoopDeps, 'store'>, idOrPrefix: string): Promise<RunRow> {
  const run = await deps.store.findRun(idOrPrefix);
  if (!run) throw new UnknownRunError(idOrPrefix);
  return run;
}

/** `revloop resume RUN`: finishes a run whose owner died (or writes a completed run's missing record). */
export async function resumeRun(
  deps: LoopDeps,
  idOrPrefix: string,
  out?: string,
): Promise<Omit<Extract<ReviewOutcome, { kind: 'run' }>, 'admitted'>> {
  const run = await findRunOrThrow(deps, idOrPrefix);
  if (isTerminal(run.status))
    return { kind: 'run', run, recordPath: await finishedRun(deps, run, out), detached: null };
  const lease = await takeOver(deps, run);
  if (!lease) {
    const o = run.leaseOwner;
    throw new RunBusyError(
      run.id,
      o
        ? `process ${o.pid} on ${o.host} (lease live until ${new Date(run.leaseExpiresAt ?? 0).toISOString()})`
        : 'another worker',
    );
  }
  const r = await driveRun(deps, lease, { out });
  return { kind: 'run', run: r.run, recordPath: r.recordPath, detached: r.detached };
}

export interface WorkerOptions {
  concurrency: number;
  exitWhenIdle: boolean;
  idleSleepMs?: number | undefined;
  onRun?: ((r: DriveResult) => void) | undefined;
  onError?: ((runId: string, err: Error) => void) | undefined;
  /** How long to wait for an unavailable ledger before giving up (default 120 s). */
  storePatienceMs?: number | undefined;
  /** One line when a wait for the ledger begins, one when it is back. */
  storeEvents?: StoreWaitEvents | undefined;
}

/** How soon a lane asks again when the claimable runs were all held by other transactions. */
const LOCKED_RETRY_MS = 100;

/**
 * Drives a held run, riding out the ledger's outages: a transient store fault
 * ends nothing. Once the ledger answers, the run is read back: ended (the
 * write whose answer was lost was its end) → its record is written; taken over
 * by another owner meanwhile → this owner lets go; still ours (its lease may
 * have lapsed with nobody taking it) → driven on, the ledger skipping every
 * stage that completed and replaying only the interrupted call.
 */
async function driveThroughOutages(
  deps: LoopDeps,
  lease: Lease,
  patience: StorePatience,
): Promise<DriveResult> {
  for (;;) {
    try {
      return await driveRun(deps, lease);
    } catch (err) {
      if (!isTransientStoreFault(err)) throw err;
      const run = await patience.ride(async () => {
        const r = await deps.store.getRun(lease.runId);
        if (!r) throw err;
        return r;
      });
      if (run.fencingToken !== lease.token) return { run, recordPath: null, detached: 'fenced_out' };
      if (isTerminal(run.status)) {
        const recordPath = await patience.ride(() => finishedRun(deps, run));
        return { run: (await deps.store.getRun(run.id)) ?? run, recordPath, detached: null };
      }
    }
  }
}

/** How many completed runs without a record one sweep signs at most (the next sweep takes the rest). */
const RECORD_SWEEP = 10;

/**
 * Every completed run has its record (invariant 14): one whose writer died
 * between the ledger's end and the record is signed by a worker that finds it
 * (at its start and between claims) and kept in the ledger. A run this worker
 * failed to sign once (its error reported) is not tried again by it.
 */
function recordSweeper(deps: LoopDeps, repo: string, onError: WorkerOptions['onError']) {
  const failed = new Set<string>();
  return async (): Promise<void> => {
    const runs = await deps.store.runsWithoutRecord(repo, RECORD_SWEEP + failed.size).catch(() => []);
    for (const run of runs.filter((r) => !failed.has(r.id)).slice(0, RECORD_SWEEP)) {
      if (deps.signal?.aborted) return;
      await writeRunRecord(deps, run).catch((err: unknown) => {
        // An unavailable ledger is not this run's fault: the next sweep tries again.
        if (isTransientStoreFault(err)) return;
        failed.add(run.id);
        onError?.(run.id, err as Error);
      });
    }
  };
}

/** `revloop worker`: claim admitted (or abandoned) runs and drive them, until idle or stopped. */
export async function runWorker(deps: LoopDeps, opts: WorkerOptions): Promise<{ runs: number }> {
  let runs = 0;
  const patience = new StorePatience(
    deps.clock,
    opts.storePatienceMs ?? DEFAULT_STORE_PATIENCE_MS,
    opts.storeEvents,
    deps.signal,
  );
  // Only this repository's runs: another repository's commits are not in this checkout.
  const repo = await deps.git.identity(deps.repoRoot);
  const sweepRecords = recordSweeper(deps, repo, opts.onError);
  await sweepRecords();
  const lane = async () => {
    for (;;) {
      if (deps.signal?.aborted) return;
      const lease = await patience.ride(() => deps.store.claimNext(deps.owner, deps.leaseTtlMs, repo));
      if (!lease) {
        // An empty claim is not an empty queue: the claim skips rows other transactions hold
        // (a sibling lane's claim, a frozen owner's open write). Idle means nothing is claimable.
        // Asked only before exiting: a lane that stays polls as it did, one query a poll.
        if (opts.exitWhenIdle && !(await patience.ride(() => deps.store.hasClaimable(repo)))) return;
        await deps.clock.sleep(opts.exitWhenIdle ? LOCKED_RETRY_MS : (opts.idleSleepMs ?? 1000), deps.signal);
        continue;
      }
      try {
        const r = await driveThroughOutages(deps, lease, patience);
        runs++;
        opts.onRun?.(r);
        await sweepRecords();
      } catch (err) {
        // The ledger stayed away past the worker's patience, or refuses writes (read-only, full,
        // locked, corrupt): the fault is the ledger's, not the run's, and the run is not this
        // worker's to end (ending it the moment the ledger heals would lose it to the fault); the
        // worker exits 5, the lease lapses and whoever holds it next goes on.
        if (isLedgerFault(err)) throw err;
        // A bug in one run must not stop the worker, and must not leave the run to be
        // reclaimed and crash again forever: it ends `unknown`.
        opts.onError?.(lease.runId, err as Error);
        // Whatever attempt the error left `started` ends `unknown` with the run (as driveRun's end does).
        await deps.store
          .markInterruptedAttempts(lease)
          .then(() =>
            deps.store.finishRun(
              lease,
              unfinishedEnd('unknown', 'interrupted', `worker error: ${(err as Error).message}`),
            ),
          )
          .catch(() => undefined);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, opts.concurrency) }, lane));
  return { runs };
}
