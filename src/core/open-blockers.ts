/**
 * Which findings still stand between a round and `clear`: the round's own
 * blockers, earlier blockers the fixer disputed that wait for a person, and
 * the controller's own findings on the protected paths this round's revision
 * edits (each round checks its own revision, so they are the round's: a fix
 * that reverts the edit leaves none, one that makes another edit raises a new
 * one) until a person overturns them.
 */
import type { OpenBlocker } from './decide.js';
import type { FindingRow } from './ledger.js';
import { isBlocker } from './run-report.js';

/**
 * `sameClaim` names a finding's claim (reviewer, file, claim text) so that a
 * reviewer raising again a claim the fixer disputed does not send it back to
 * the fixer: the re-raise waits for the person, like the dispute it repeats.
 */
export function openBlockers(
  findings: FindingRow[],
  round: number,
  controllerReviewer: string,
  sameClaim: (f: FindingRow) => string = (f) => f.id,
): OpenBlocker[] {
  const waiting = new Map<string, FindingRow>();
  for (const f of findings) {
    if (
      f.round < round &&
      f.reviewer !== controllerReviewer &&
      isBlocker(f) &&
      f.dispute !== null &&
      f.settlement === null
    ) {
      waiting.set(sameClaim(f), f);
    }
  }
  const out: OpenBlocker[] = [];
  const repeated = new Set<string>();
  for (const f of findings) {
    if (f.round !== round || !isBlocker(f)) continue;
    if (f.reviewer === controllerReviewer) {
      // Upheld by a person: decided (nobody is waited for), and still never the fixer's.
      out.push(
        f.settlement?.decision === 'upheld'
          ? { id: f.id, disputed: false, needsSettlement: false, upheld: true }
          : { id: f.id, disputed: false, needsSettlement: true },
      );
      continue;
    }
    const claim = sameClaim(f);
    const awaits = waiting.has(claim);
    if (awaits) repeated.add(claim);
    out.push({
      id: f.id,
      disputed: awaits || (f.dispute !== null && f.settlement === null),
      needsSettlement: false,
    });
  }
  for (const f of findings) {
    if (f.round >= round || !isBlocker(f)) continue;
    if (f.reviewer === controllerReviewer) continue;
    if (waiting.get(sameClaim(f)) === f && !repeated.has(sameClaim(f))) {
      out.push({ id: f.id, disputed: true, needsSettlement: false });
    }
  }
  return out;
}
