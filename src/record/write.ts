/** Signing a statement and writing the record file (atomically, invariant 5). */
import { join } from 'node:path';
import { writeFileAtomic } from '../io/atomic-file.js';
import type { Signer } from '../ports/signer.js';
import { type Envelope, IN_TOTO_PAYLOAD_TYPE, signEnvelope } from './dsse.js';
import type { Statement } from './statement.js';

/** Where a run's record lives: `<repoRoot>/.revloop/records/<runId>.json`. */
export const recordPathFor = (repoRoot: string, runId: string): string =>
  join(repoRoot, '.revloop', 'records', `${runId}.json`);

/** Wraps a statement in a DSSE envelope signed by every signer given. */
export function signStatement(statement: Statement, signers: Signer | Signer[]): Envelope {
  const body = Buffer.from(JSON.stringify(statement), 'utf8');
  return signEnvelope(IN_TOTO_PAYLOAD_TYPE, body, Array.isArray(signers) ? signers : [signers]);
}

/** Writes the envelope as pretty JSON via writeFileAtomic. */
export function writeRecord(envelope: Envelope, path: string): void {
  writeFileAtomic(path, `${JSON.stringify(envelope, null, 2)}\n`);
}
