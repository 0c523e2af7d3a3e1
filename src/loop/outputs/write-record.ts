/**
 * The signed record of a completed run (invariant 14), written after the
 * ledger says `completed`: the record is a statement about the ledger, never
 * a completion signal. Its envelope is kept in the ledger, the first one
 * kept being the run's record on every clone (decision 0178): a missing file
 * is written again from there by `resume`, `status` and `verify --run`.
 */
import { createPublicKey, randomBytes } from 'node:crypto';
import { existsSync, linkSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { RunRow } from '../../core/ledger.js';
import { stageRows } from '../../core/stage-results.js';
import { fsyncDir, writeFileAtomic } from '../../io/atomic-file.js';
import { FileWriteError } from '../../io/errors.js';
import type { Store } from '../../ports/store.js';
import {
  buildStatement,
  DEFAULT_KEY_PREFIX,
  type Envelope,
  generateKeyPair,
  loadSigner,
  parseEnvelope,
  recordPathFor,
  signStatement,
  writeRecord,
} from '../../record/index.js';
import type { LoopDeps } from '../deps.js';
import { RunOutputError } from '../errors.js';
import { writeEscalation } from './escalation.js';
import { loadOutputReport } from './run-report-loader.js';

/**
 * The repository's signing key, created on first use (as `init` and `keygen`
 * do). Two processes may both find it missing: each generates a pair under a
 * private name and links it into place, and link() lets exactly one win, so
 * nobody signs with a key that another process then overwrote.
 */
export function signingKeyPath(repoRoot: string): string {
  const prefix = join(repoRoot, DEFAULT_KEY_PREFIX);
  if (existsSync(`${prefix}.key`)) {
    // A crash between linking the .key and renaming the .pub into place leaves a
    // key nobody can check records against: derive the public half again.
    if (!existsSync(`${prefix}.pub`)) writeFileAtomic(`${prefix}.pub`, publicPemOf(`${prefix}.key`));
    return `${prefix}.key`;
  }
  const mine = `${prefix}.${process.pid}.${randomBytes(4).toString('hex')}`;
  generateKeyPair(mine);
  try {
    linkSync(`${mine}.pub`, `${prefix}.pub.${process.pid}`);
    linkSync(`${mine}.key`, `${prefix}.key`);
    renameSync(`${prefix}.pub.${process.pid}`, `${prefix}.pub`);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    rmSync(`${prefix}.pub.${process.pid}`, { force: true });
  } finally {
    rmSync(`${mine}.key`, { force: true });
    rmSync(`${mine}.pub`, { force: true });
  }
  fsyncDir(dirname(prefix));
  return `${prefix}.key`;
}

function publicPemOf(privatePath: string): string {
  return createPublicKey(readFileSync(privatePath)).export({ type: 'spki', format: 'pem' }) as string;
}

export async function writeRunRecord(deps: LoopDeps, run: RunRow, out?: string): Promise<string> {
  // The ledger's envelope when it holds one (signed on whichever machine wrote it first), else
  // one signed here and kept there: every clone then writes the same record.
  const envelope = (await envelopeInLedger(deps.store, run.id)) ?? (await signAndKeep(deps, run));
  const path = recordPathFor(deps.repoRoot, run.id);
  writeRecord(envelope, path);
  await deps.store.setRecordPath(run.id, path);
  // The copy goes second: a bad `--out` then leaves the run's own record in place and known.
  if (out) {
    try {
      writeRecord(envelope, out);
    } catch (err) {
      if (err instanceof FileWriteError) throw new RunOutputError(run.id, endedAs(run), err, path);
      throw err;
    }
  }
  return path;
}

/** Signs the run's statement with this clone's key and keeps it in the ledger; the envelope kept first wins. */
async function signAndKeep(deps: LoopDeps, run: RunRow): Promise<Envelope> {
  const report = await loadOutputReport(deps.store, run.id, deps.env);
  if (!report) throw new Error(`run ${run.id} vanished from the ledger`);
  const s = run.snapshot;
  // The fix that made the final head recorded its digest, and the review of that head hashed
  // the diff afresh against it before completing: the ledger has it.
  const fixedTo = stageRows(report.stages, 'fix').find((st) => st.result.commit === run.head);
  const finalDiffDigest =
    run.head === s.head
      ? s.diffDigest
      : (fixedTo?.result.diffDigest ?? (await deps.git.diffDigest(deps.repoRoot, s.mergeBase, run.head)));
  const signer = loadSigner(signingKeyPath(deps.repoRoot));
  const envelope = signStatement(buildStatement(report, { finalDiffDigest }), signer);
  const kept = await deps.store.putRecordEnvelope(run.id, JSON.stringify(envelope));
  return asEnvelope(run.id, kept);
}

/** The signed envelope the ledger holds for a run, or null. */
async function envelopeInLedger(store: Store, runId: string): Promise<Envelope | null> {
  const text = await store.getRecordEnvelope(runId);
  return text === null ? null : asEnvelope(runId, text);
}

function asEnvelope(runId: string, text: string): Envelope {
  const parsed = parseEnvelope(text);
  if (!parsed.ok)
    throw new Error(`the ledger's record of run ${runId} is not a signed envelope: ${parsed.reason}`);
  return parsed.envelope;
}

/**
 * Writes the record the ledger holds for a completed run to this clone's
 * record path (`status`, `verify --run`: no signing key, no ledger write);
 * null when the ledger holds none.
 */
export async function recordFromLedger(
  deps: Pick<LoopDeps, 'store' | 'repoRoot'>,
  runId: string,
): Promise<string | null> {
  const envelope = await envelopeInLedger(deps.store, runId);
  if (!envelope) return null;
  const path = recordPathFor(deps.repoRoot, runId);
  writeRecord(envelope, path);
  return path;
}

/**
 * What a finished run leaves on disk: its signed record when completed, and
 * the escalation report when the stop rule ended it. Both are derived from
 * the ledger, so `resume` can write them again after a crash.
 */
export async function writeRunOutputs(deps: LoopDeps, run: RunRow, out?: string): Promise<string | null> {
  try {
    if (run.stopReason === 'no_progress') {
      const report = await loadOutputReport(deps.store, run.id, deps.env);
      if (report) writeEscalation(deps.stateDir(deps.repoRoot), report);
    }
    return run.status === 'completed' ? await writeRunRecord(deps, run, out) : null;
  } catch (err) {
    if (!(err instanceof FileWriteError)) throw err;
    throw new RunOutputError(run.id, endedAs(run), err);
  }
}

const endedAs = (run: RunRow): string =>
  run.status === 'completed' ? `completed (${run.outcome})` : run.status;
