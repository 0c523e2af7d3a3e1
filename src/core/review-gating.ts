/**
 * The review planner: from the reviewers' replies, the frozen ignore rules,
 * the policy and the scope facts git gave, which findings are dropped (issue
 * 17), and how each other one is gated (invariants 9 and 11) with its reason.
 * The live review stage and replay both call it, so they cannot gate apart.
 */
import type { Hash } from './canonical-json.js';
import { gateScenario } from './gating.js';
import type { IgnoreMatcher } from './ignore.js';
import { findingFingerprint } from './keys.js';
import type { GateDecision } from './ledger.js';
import { gateScope, type ScopeFacts } from './scope-lock.js';
import type { DroppedFinding } from './stage-results.js';
import type { Policy, ReportedFinding, ReviewerReply, Severity } from './types.js';

/** One reviewer call's reply, in recorded (configured) order. */
export interface ReviewedCall {
  reviewer: string;
  callKey: string;
  reply: ReviewerReply;
}

/** A reported finding that is gated: not on an ignored path. */
export interface FindingToGate {
  id: string;
  reviewer: string;
  callKey: string;
  /** Its index in its call's reply. */
  index: number;
  reported: ReportedFinding;
}

export interface GatedFinding extends FindingToGate {
  /** The severity after gating. */
  severity: Severity;
  gate: GateDecision;
}

/**
 * Splits the calls' findings into those dropped on an ignored path (with the
 * rule) and those to gate (with their stable ids), in recorded order. A
 * reviewer's chunk calls each see the whole change's file list, so each may
 * report the same finding on a file outside its chunk: one per fingerprint
 * (keys.ts) is kept across a reviewer's calls, the first in recorded order.
 */
export function findingsToGate(
  calls: readonly ReviewedCall[],
  ignoredBy: IgnoreMatcher,
  idOf: (callKey: string, index: number) => string,
  /** Null: every finding (a review recorded before findings were folded by fingerprint). */
  hash: Hash | null,
): { toGate: FindingToGate[]; dropped: DroppedFinding[] } {
  const toGate: FindingToGate[] = [];
  const dropped: DroppedFinding[] = [];
  // Fingerprint of a finding kept, and the call that reported it: the same call may name it twice.
  const keptBy = new Map<string, string>();
  for (const { reviewer, callKey, reply } of calls) {
    for (const [index, reported] of reply.findings.entries()) {
      const rule = ignoredBy(reported.file);
      if (rule !== null) {
        dropped.push({ reviewer, callKey, index, file: reported.file, rule });
        continue;
      }
      if (hash !== null) {
        const print = findingFingerprint(reviewer, reported.file, reported.claim, hash);
        const first = keptBy.get(print);
        if (first !== undefined && first !== callKey) continue;
        keptBy.set(print, callKey);
      }
      toGate.push({ id: idOf(callKey, index), reviewer, callKey, index, reported });
    }
  }
  return { toGate, dropped };
}

/** Scope facts of a finding recorded without any (never passed): the lock does not apply. */
export const NO_PASS: ScopeFacts = { passedAt: null, touchedSincePass: true };

/** Gating: U1 first (a vague blocker is MINOR whatever its scope), then the scope lock. */
export function gateFinding(
  f: ReportedFinding,
  criteria: string,
  facts: ScopeFacts,
  policy: Pick<Policy, 'requireScenario' | 'scopeLock'>,
): GateDecision {
  const g = gateScenario(f, criteria, policy.requireScenario);
  return g.kind === 'demoted' ? g : gateScope(f, facts, policy.scopeLock);
}

/** Every finding to gate, gated on its scope facts: a demoted one is recorded MINOR. */
export function gateFindings(
  toGate: readonly FindingToGate[],
  scope: Readonly<Record<string, ScopeFacts>>,
  criteria: string,
  policy: Pick<Policy, 'requireScenario' | 'scopeLock'>,
): GatedFinding[] {
  return toGate.map((f) => {
    const gate = gateFinding(f.reported, criteria, scope[f.id] ?? NO_PASS, policy);
    return { ...f, gate, severity: gate.kind === 'demoted' ? 'MINOR' : f.reported.severity };
  });
}
