/**
 * Invariant 11: once a reviewer has passed revision N of a change, its new
 * blockers on later revisions are in scope only on lines changed since N; a
 * re-raise on an unchanged line must say what the earlier pass missed.
 */
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
