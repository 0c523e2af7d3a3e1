/**
 * Invariant 9: a MAJOR or MODERATE finding that names neither a concrete
 * failure scenario nor the exact criteria clause it violates is recorded as
 * MINOR and does not block.
 */
import type { GateDecision } from './ledger.js';
import { isBlockingSeverity, type ReportedFinding } from './types.js';

const normalize = (s: string): string => s.toLowerCase().replace(/\s+/g, ' ').trim();

/**
 * A scenario is concrete when it says something a reader could try: at least
 * a few words, and not one of the stock phrases reviewers use instead of one.
 */
export function hasConcreteScenario(scenario: string | undefined): boolean {
  if (!scenario) return false;
  const s = normalize(scenario);
  if (s.split(' ').length < 4) return false;
  // The 3-word phrases are already too short alone; match them after a subject ("This could cause issues.") too.
  return !VAGUE.some((v) => new RegExp(`^((this|that|it) )?${v.replace(/^this /, '')}([.!?]|$)`).test(s));
}

const VAGUE = [
  'could cause issues',
  'may cause problems',
  'might be a problem',
  'this could be a problem',
  'n/a',
  'none',
];

/**
 * A violated clause counts only when it is really in the criteria: a quoted
 * passage (at least 20 characters, case and whitespace folded) that occurs
 * there, or an identifier with a digit such as "R3" or "2.1" (optionally
 * followed by the clause's text) that starts a criteria line.
 */
export function clauseInCriteria(clause: string | undefined, criteria: string): boolean {
  if (!clause) return false;
  const c = normalize(clause);
  if (c.length === 0) return false;
  if (c.length >= 20 && normalize(criteria).includes(c)) return true;
  const id = (c.split(' ')[0] ?? '').replace(/[.:)]+$/, '');
  if (!/\d/.test(id) || id.length > 8) return false;
  return criteria
    .split('\n')
    .map((l) => normalize(l.replace(/^[#>*\-\s]+/, '')))
    .some((l) => new RegExp(`^${id.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}([ :)]|\\.(?!\\d)|$)`).test(l));
}

export function gateScenario(f: ReportedFinding, criteria: string, requireScenario: boolean): GateDecision {
  if (!requireScenario || !isBlockingSeverity(f.severity)) return { kind: 'kept' };
  if (hasConcreteScenario(f.failureScenario) || clauseInCriteria(f.violatedClause, criteria))
    return { kind: 'kept' };
  return { kind: 'demoted', rule: 'no_scenario', from: f.severity };
}
