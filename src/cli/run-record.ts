/**
 * `verify --run RUN`: the run's record as the ledger holds it, written to this
 * clone's record path first (the run may have been driven on another machine),
 * else the record already here.
 */
import { existsSync } from 'node:fs';
import { UsageError } from '../core/errors.js';
import { findRunOrThrow } from '../loop/operations.js';
import { recordFromLedger } from '../loop/outputs/write-record.js';
import { recordPathFor } from '../record/write.js';
import { openRepo } from './context.js';
import type { CliIO } from './io.js';

export type RunRecord = { path: string } | { notCompleted: string };

export async function recordOfRun(
  io: CliIO,
  opts: { repo?: string; store?: string },
  idOrPrefix: string,
): Promise<RunRecord> {
  const { store, deps } = await openRepo(io, opts, undefined, { readonly: true });
  try {
    const run = await findRunOrThrow(deps, idOrPrefix);
    if (run.status !== 'completed')
      return { notCompleted: `run ${run.id} is ${run.status}: only a completed run has a signed record` };
    const path = (await recordFromLedger(deps, run.id)) ?? recordPathFor(deps.repoRoot, run.id);
    if (!existsSync(path))
      throw new UsageError(
        `run ${run.id} has no signed record in the ledger or on this machine; write it with: ${io.self} resume ${run.id}`,
      );
    return { path };
  } finally {
    await store.close();
  }
}
