/**
 * The record layer: in-toto statement, DSSE envelope, Ed25519 keys, verify.
 * `recordRun` is what the loop calls when a run ends.
 */
import type { RunReport } from '../core/run-report.js';
import type { Signer } from '../ports/signer.js';
import type { Envelope } from './dsse.js';
import { buildStatement, type Statement } from './statement.js';
import { recordPathFor, signStatement, writeRecord } from './write.js';

export * from './dsse.js';
export * from './errors.js';
export * from './keys.js';
export * from './statement.js';
export * from './write.js';

/**
 * Builds, signs and writes a run's record to `<repoRoot>/.revloop/records/<runId>.json`
 * (and to `out` when given). `finalDiffDigest` is the diff digest of
 * snapshot.mergeBase..report.run.head.
 */
export function recordRun(
  report: RunReport,
  opts: { finalDiffDigest: string; signer: Signer; repoRoot: string; out?: string | undefined },
): { path: string; envelope: Envelope; statement: Statement } {
  const statement = buildStatement(report, { finalDiffDigest: opts.finalDiffDigest });
  const envelope = signStatement(statement, opts.signer);
  const path = recordPathFor(opts.repoRoot, report.run.id);
  writeRecord(envelope, path);
  if (opts.out) writeRecord(envelope, opts.out);
  return { path, envelope, statement };
}
