/**
 * The signed record of a completed run (invariant 14), written after the
 * ledger says `completed`: the record is a statement about the ledger, never
 * a completion signal. A missing one is written again by `resume`.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { RunRow } from '../core/ledger.js';
import { DEFAULT_KEY_PREFIX, generateKeyPair, loadSigner, recordRun } from '../record/index.js';
import type { LoopDeps } from './deps.js';
import { loadRunReport } from './run-report-loader.js';

/** The repository's signing key, created on first use (as `init` and `keygen` do). */
export function signingKeyPath(repoRoot: string): string {
  const prefix = join(repoRoot, DEFAULT_KEY_PREFIX);
  if (!existsSync(`${prefix}.key`)) generateKeyPair(prefix);
  return `${prefix}.key`;
}

export async function writeRunRecord(deps: LoopDeps, run: RunRow, out?: string): Promise<string> {
  const report = await loadRunReport(deps.store, run.id);
  if (!report) throw new Error(`run ${run.id} vanished from the ledger`);
  const s = run.snapshot;
  const finalDiffDigest =
    run.head === s.head ? s.diffDigest : await deps.git.diffDigest(deps.repoRoot, s.mergeBase, run.head);
  const signer = loadSigner(signingKeyPath(deps.repoRoot));
  const { path } = recordRun(report, { finalDiffDigest, signer, repoRoot: deps.repoRoot, out });
  await deps.store.setRecordPath(run.id, path);
  return path;
}
