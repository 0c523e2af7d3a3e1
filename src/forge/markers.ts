/**
 * The hidden markers that make publication idempotent (invariant 17): every
 * comment revloop writes starts with one, so a later publication finds its
 * own objects by fingerprint and run instead of posting them again.
 */

export interface FindingMarker {
  fingerprint: string;
  runId: string;
  revision: string;
}

export interface RunMarker {
  runId: string;
  revision: string;
}

const TOKEN = /^[A-Za-z0-9._-]{1,128}$/;
const FINDING = /^<!-- revloop finding=([A-Za-z0-9._-]+) run=([A-Za-z0-9._-]+) revision=([0-9a-f]{7,64}) -->/;
const RUN = /^<!-- revloop run=([A-Za-z0-9._-]+) revision=([0-9a-f]{7,64}) -->/;

function token(name: string, v: string): string {
  // Values come from the ledger; one that could close the comment early is a bug, not data.
  if (!TOKEN.test(v)) throw new Error(`marker ${name} is not a plain token: ${JSON.stringify(v)}`);
  return v;
}

export const findingMarker = (m: FindingMarker): string =>
  `<!-- revloop finding=${token('finding', m.fingerprint)} run=${token('run', m.runId)} revision=${token('revision', m.revision)} -->`;

export const runMarker = (m: RunMarker): string =>
  `<!-- revloop run=${token('run', m.runId)} revision=${token('revision', m.revision)} -->`;

/** The marker at the very start of a body; a marker anywhere else (a person quoting one) does not count. */
export function parseFindingMarker(body: string | null | undefined): FindingMarker | null {
  const m = FINDING.exec(body ?? '');
  return m ? { fingerprint: m[1] as string, runId: m[2] as string, revision: m[3] as string } : null;
}

export function parseRunMarker(body: string | null | undefined): RunMarker | null {
  const m = RUN.exec(body ?? '');
  return m ? { runId: m[1] as string, revision: m[2] as string } : null;
}
