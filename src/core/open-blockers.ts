/**
 * Which findings still stand between a round and `clear`: the round's own
 * blockers, earlier blockers the fixer disputed that wait for a person, and
 * the controller's own findings on protected paths until a person overturns them.
 */
import type { OpenBlocker } from './decide.js';
import type { FindingRow } from './ledger.js';
import { isBlocker } from './run-report.js';

export function openBlockers(
  findings: FindingRow[],
  round: number,
  controllerReviewer: string,
): OpenBlocker[] {
  const out: OpenBlocker[] = [];
  for (const f of findings) {
    if (f.round > round || !isBlocker(f)) continue;
    if (f.reviewer === controllerReviewer) {
      out.push({ id: f.id, disputed: false, needsSettlement: true });
    } else if (f.round === round) {
      out.push({ id: f.id, disputed: f.dispute !== null && f.settlement === null, needsSettlement: false });
    } else if (f.dispute !== null && f.settlement === null) {
      out.push({ id: f.id, disputed: true, needsSettlement: false });
    }
  }
  return out;
}
