/**
 * Violations the simulation finds in the driver that are not fixed yet: each
 * is named, matched narrowly, counted and printed in every summary, and never
 * fails a schedule. Delete an entry once the driver is fixed; the simulation
 * then holds the fix. Empty: the five gaps issue 20's simulation found are
 * fixed in src/loop, each also held by test/loop/simulation-gaps.test.ts.
 */
import type { Violation } from './invariants.js';

export interface KnownGap {
  id: string;
  /** Why it happens, and where the fix belongs. */
  why: string;
  matches: (v: Violation) => boolean;
}

export const KNOWN_GAPS: readonly KnownGap[] = [];

export function knownGap(v: Violation): KnownGap | undefined {
  return KNOWN_GAPS.find((g) => g.matches(v));
}
