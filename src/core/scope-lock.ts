/**
 * Invariant 11: once a reviewer has passed revision N of a change, its new
 * blockers on later revisions are in scope only on lines changed since N; a
 * re-raise on an unchanged line must say what the earlier pass missed.
 *
 * A pass belongs to the reviewer that gave it: its name and the digest of what
 * defines it (adapter, command, model, template, criteria: the snapshot's
 * `identityDigest`). A reviewer swapped in under the same name never passed
 * anything, so its blockers are all in scope.
 */
import { canonicalJson } from './canonical-json.js';
import type { GateDecision } from './ledger.js';
import { isBlockingSeverity, type ReportedFinding } from './types.js';

/** What git says about a finding's lines, gathered by the driver before deciding. */
export interface ScopeFacts {
  /** The latest revision of the change this reviewer passed before this one, or null. */
  passedAt: string | null;
  /** Whether any line of the finding changed between `passedAt` and the reviewed revision. */
  touchedSincePass: boolean;
}

export function gateScope(f: ReportedFinding, facts: ScopeFacts, scopeLock: boolean): GateDecision {
  if (!scopeLock || !isBlockingSeverity(f.severity) || facts.passedAt === null) return { kind: 'kept' };
  if (facts.touchedSincePass) return { kind: 'kept' };
  if (f.missedBecause && f.missedBecause.trim().split(/\s+/).length >= 3) return { kind: 'kept' };
  return { kind: 'demoted', rule: 'scope_lock', from: f.severity, passedAt: facts.passedAt };
}

/** One recorded reviewer verdict of the change, with the identity of the reviewer that gave it. */
export interface RecordedReview {
  reviewer: string;
  revision: string;
  verdict: 'pass' | 'findings';
  recordedAt: number;
  /**
   * The reviewer's identity digest in the snapshot of the run that recorded it;
   * null when that run was admitted before identities were frozen: an unknown
   * reviewer, whose pass locks nothing.
   */
  identity: string | null;
}

/**
 * For each current reviewer (name → identity digest), the earlier revisions it
 * passed, latest first, that may lock its scope on `head`: passes by the same
 * name and identity only. A revision reviewed in chunks is passed only when no
 * chunk of it (by that name) had findings. The caller keeps the first of each
 * list that is an ancestor of `head` (a question for git).
 */
export function passCandidates(
  recorded: readonly RecordedReview[],
  current: ReadonlyMap<string, string>,
  head: string,
): Map<string, string[]> {
  const earlier = recorded.filter((v) => v.revision !== head);
  const raised = new Set(
    earlier.filter((v) => v.verdict !== 'pass').map((v) => `${v.reviewer}@${v.revision}`),
  );
  const out = new Map<string, string[]>();
  const passes = earlier
    .filter((v) => v.verdict === 'pass' && !raised.has(`${v.reviewer}@${v.revision}`))
    .filter((v) => v.identity !== null && current.get(v.reviewer) === v.identity)
    .sort((a, b) => b.recordedAt - a.recordedAt);
  for (const v of passes) {
    const list = out.get(v.reviewer) ?? [];
    if (!list.includes(v.revision)) list.push(v.revision);
    out.set(v.reviewer, list);
  }
  return out;
}

/** What defines an agent, for its identity digest (the snapshot freezes it). */
export interface AgentDefinition {
  adapter: string;
  command?: readonly string[] | undefined;
  script?: string | undefined;
  model?: string | undefined;
  baseURL?: string | undefined;
  promptTemplateDigest: string;
  criteriaDigest: string;
  /** The digest of each repository file its command or script names, at the config's commit. */
  files?: Readonly<Record<string, string | null>> | undefined;
}

export const agentIdentity = (d: AgentDefinition, hash: (s: string) => string): string =>
  hash(`agent-identity:${canonicalJson(d)}`);
