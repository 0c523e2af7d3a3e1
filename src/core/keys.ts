/**
 * The keys that make runs idempotent and calls replayable. Each is a hash of
 * canonical JSON, so equal inputs always give equal keys on any machine.
 */
import { canonicalJson, type Hash } from './canonical-json.js';
import type { AdmissionKeyParts, Role, Snapshot, Stage } from './types.js';

/** Invariant 3: one admission key (repo, base, head, diff, criteria, config digests) has at most one active run. */
export const admissionKey = (parts: AdmissionKeyParts, hash: Hash): string =>
  hash(`admission:${canonicalJson(parts)}`);

/**
 * The key a revision's `ordinal`th rerun is admitted under: invariant 3 holds
 * per rerun (one run of each), and the first run keeps the revision's key.
 */
export const rerunAdmissionKey = (revisionKey: string, ordinal: number): string =>
  ordinal === 0 ? revisionKey : `${revisionKey}/rerun/${ordinal}`;

export const snapshotKey = (snapshot: Snapshot, hash: Hash): string =>
  hash(`snapshot:${canonicalJson(snapshot)}`);

export interface CallKeyParts {
  snapshotKey: string;
  /**
   * The run. DESIGN.md keys a call on the snapshot alone; a run admitted again
   * after a failed one has the same snapshot, and would then be handed the old
   * run's verdicts, recorded against the old run. Each run's calls are its own.
   */
  runId: string;
  round: number;
  stage: Stage;
  role: Role;
  /**
   * The reviewer's configured name. DESIGN.md keys a call on the role; two
   * reviewers given byte-identical prompts would then share one key and one
   * verdict, so the name is part of the key too.
   */
  name: string;
  promptDigest: string;
  /**
   * The part of a diff too large for one call, by its index and
   * files. Absent when the diff fits one call, so such a call keeps the key
   * it had before chunking (recorded runs still replay).
   */
  chunk?: { index: number; files: string[] } | undefined;
  /**
   * Which of a reviewer's repeated calls on the same prompt (`review.samples`)
   * this is. Absent for the first (sample 0), so a run that draws one sample
   * keeps the keys it had before sampling existed.
   */
  sample?: number | undefined;
}

/** Invariant 6: one call of one agent in one round; a retry or a replay after a crash reuses it. */
export const callKey = (p: CallKeyParts, hash: Hash): string =>
  hash(`call:${canonicalJson(p.sample ? p : { ...p, sample: undefined })}`);

/**
 * Everything a call's verdict depends on when its input is its prompt alone:
 * the repository (a tenant never gets another repository's verdicts), the
 * agent's identity digest (adapter, command, model, endpoint, template,
 * criteria, the files its command names), its name, role, the prompt's digest
 * (diff chunk, file context, criteria, template), the sampling it was sent
 * and the sample's index. A verdict is reused only under an equal key.
 */
export interface ReuseKeyParts {
  repo: string;
  identity: string;
  name: string;
  role: Role;
  promptDigest: string;
  sampling: { temperature: number | null; seed?: number | undefined };
  /** Which of a call's samples (0 when one is drawn): a sample's verdict is reused only for the same index. */
  sample: number;
}

export const reuseKey = (p: ReuseKeyParts, hash: Hash): string => hash(`reuse:${canonicalJson(p)}`);

/** A finding's id: stable for a replayed call within a run, distinct across runs. */
export const findingId = (runId: string, callKeyValue: string, index: number, hash: Hash): string =>
  hash(`finding:${runId}:${callKeyValue}:${index}`).slice(0, 16);

/**
 * Identifies "the same claim" across runs and revisions of a change:
 * reviewer, file and the claim with case, punctuation and whitespace folded;
 * line numbers are left out (they move when unrelated lines change).
 * Settlements carry over by it, a re-raise of a disputed claim is found by it,
 * and SARIF's partialFingerprints are it.
 */
export const findingFingerprint = (reviewer: string, file: string, claim: string, hash: Hash): string =>
  hash(
    `fingerprint:${reviewer}\n${file}\n${claim
      .toLowerCase()
      .replace(/[^\p{L}\p{N}]+/gu, ' ')
      .trim()}`,
  ).slice(0, 24);
