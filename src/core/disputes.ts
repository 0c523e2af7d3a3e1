/**
 * Which blocker each of the fixer's disputes names. The fixer may quote a
 * finding's id in full or by a prefix of at least six characters (ids are
 * long); a dispute naming no blocker of the round is kept apart, reported,
 * never attached to a finding.
 */
import type { FixerReply } from './types.js';

/** Shortest id prefix that names a blocker: shorter ones would too easily match by chance. */
const MIN_PREFIX = 6;

export interface MatchedDisputes {
  disputes: { findingId: string; reason: string }[];
  unknownIds: string[];
}

export function matchDisputes(
  disputed: FixerReply['disputed'],
  blockerIds: readonly string[],
): MatchedDisputes {
  const disputes: MatchedDisputes['disputes'] = [];
  const unknownIds: string[] = [];
  for (const d of disputed) {
    const id = blockerIds.find(
      (b) => b === d.finding || (d.finding.length >= MIN_PREFIX && b.startsWith(d.finding)),
    );
    if (id) disputes.push({ findingId: id, reason: d.reason });
    else unknownIds.push(d.finding);
  }
  return { disputes, unknownIds };
}
