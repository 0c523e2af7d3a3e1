/**
 * One trial of the review-loop model: a sequence of rounds (review, gate,
 * refute, decide, rework) until the loop converges, a stop rule fires, the
 * cap is reached or the horizon runs out. docs/sim.md describes the events.
 */
import type { SimParams, Upgrade } from './params.js';
import { Mulberry32, streamSeed } from './prng.js';

/** How a trial ended: `running` means it was still going at the horizon (not terminated). */
export type TrialStop = 'converged' | 'escalated' | 'capped' | 'running';

export interface TrialOutcome {
  /** Blocking findings after each round's review and gating, round 1 first. */
  blocking: number[];
  stop: TrialStop;
  rounds: number;
  /** Real defects still in the code when the loop stopped. */
  escaped: number;
  /** Rework rounds whose every blocker was a false finding (false positive or inflated nit). */
  wasted: number;
}

/** One side of the comparison: the baseline (no upgrades, a cap) or the configuration. */
export interface SideSpec {
  upgrades: readonly Upgrade[];
  /** Round cap, or null for none (the configuration relies on U4 or the horizon). */
  cap: number | null;
}

// Stream lanes per round: fixed-count draws, then the variable-count conflict draws, kept
// apart so a different number of conflicts on the two sides does not shift the other draws.
const LANE_MAIN = 0;
const LANE_CONFLICTS = 1;

/** Picks a reviewer other than `from` (the same one when there is only one reviewer). */
function otherReviewer(u: number, from: number, reviewers: number): number {
  if (reviewers < 2) return from;
  const t = Math.floor(u * (reviewers - 1));
  return t >= from ? t + 1 : t;
}

/** Demoted real findings with no blocker on the same defect get a fix without another look. */
function minorFixes(
  p: SimParams,
  open: Uint8Array,
  demoted: Uint8Array,
  blockedBy: Int32Array,
  defectDraws: Float64Array,
): void {
  for (let d = 0; d < open.length; d++) {
    if (demoted[d] === 1 && blockedBy[d] === -1 && defectDraws[d * 3]! < p.fixSuccess) open[d] = 0;
  }
}

/** Runs trial number `trial` of `p` for one side. Same inputs, same outcome. */
export function runTrial(p: SimParams, side: SideSpec, trial: number): TrialOutcome {
  const u1 = side.upgrades.includes('U1');
  const u2 = side.upgrades.includes('U2');
  const u3 = side.upgrades.includes('U3');
  const u4 = side.upgrades.includes('U4');
  const R = p.reviewers;
  const D = p.defects;

  // Whether reviewer i can see defect d is drawn once: a fresh context re-reads the same diff.
  const rng = new Mulberry32(streamSeed(p.seed, trial, 0));
  const crng = new Mulberry32();
  const main = () => rng.next();
  const cs = () => crng.next();
  const visible = new Uint8Array(R * D);
  for (let k = 0; k < R * D; k++) visible[k] = main() < p.detection ? 1 : 0;

  const open = new Uint8Array(D).fill(1);
  const passed = new Uint8Array(R);
  let conflicts: number[] = [];
  const blocking: number[] = [];
  let wasted = 0;
  let stop: TrialStop = 'running';

  const blockedBy = new Int32Array(D);
  const demoted = new Uint8Array(D);
  const raised = new Int32Array(R);
  const spawns: number[] = [];
  const defectDraws = new Float64Array(D * 3);
  const conflictDraws: number[] = [];
  const survivingConflicts: number[] = [];

  for (let round = 1; round <= p.maxRounds; round++) {
    rng.reseed(streamSeed(p.seed, trial, round, LANE_MAIN));
    crng.reseed(streamSeed(p.seed, trial, round, LANE_CONFLICTS));
    blockedBy.fill(-1);
    demoted.fill(0);
    raised.fill(0);
    spawns.length = 0;
    let blockers = 0;
    let falseBlockers = 0;

    for (let i = 0; i < R; i++) {
      const wasPassed = passed[i] === 1;
      for (let d = 0; d < D; d++) {
        const uVague = main();
        const uRefute = main();
        if (open[d] === 0 || visible[i * D + d] === 0) continue;
        if (u1 && uVague < p.vague) {
          demoted[d] = 1;
          continue;
        }
        // U3 keeps a real defect in scope: the reviewer can name what its earlier pass missed.
        raised[i]! += 1;
        if (u2 && uRefute >= p.refuterAccuracy) continue; // wrongly refuted: no rework this round
        if (blockedBy[d] === -1) blockedBy[d] = i;
        blockers++;
      }
      const uFp = main();
      const uFpVague = main();
      const uFpRefute = main();
      const uFpSpawn = main();
      const uFpTarget = main();
      if (uFp < p.falsePositive && !(u1 && uFpVague < p.vague) && !(u3 && wasPassed)) {
        raised[i]! += 1;
        if (!(u2 && uFpRefute < p.refuterAccuracy)) {
          blockers++;
          falseBlockers++;
          spawns.push(uFpSpawn, uFpTarget, i);
        }
      }
      // An inflated nit has no failure scenario by nature, so U1 always demotes it.
      const uInf = main();
      const uInfRefute = main();
      const uInfSpawn = main();
      const uInfTarget = main();
      if (uInf < p.inflation && !u1 && !(u3 && wasPassed)) {
        raised[i]! += 1;
        if (!(u2 && uInfRefute < p.refuterAccuracy)) {
          blockers++;
          falseBlockers++;
          spawns.push(uInfSpawn, uInfTarget, i);
        }
      }
    }

    // A conflict is a genuine clash between two reviewers' standards, raised by its owner each
    // round until fixed. Under U3 an owner that already passed may not re-open signed lines.
    conflictDraws.length = 0;
    survivingConflicts.length = 0;
    for (const owner of conflicts) {
      const uRefute = cs();
      const uFix = cs();
      const uSpawn = cs();
      const uTarget = cs();
      if (u3 && passed[owner] === 1) continue;
      raised[owner]! += 1;
      survivingConflicts.push(owner);
      const refuted = u2 && uRefute >= p.refuterAccuracy;
      conflictDraws.push(refuted ? -1 : uFix, uSpawn, uTarget);
      if (!refuted) blockers++;
    }

    for (let k = 0; k < D * 3; k++) defectDraws[k] = main();
    for (let i = 0; i < R; i++) if (raised[i] === 0) passed[i] = 1;
    blocking.push(blockers);

    if (blockers === 0) {
      minorFixes(p, open, demoted, blockedBy, defectDraws); // MINORs are fixed without another look
      stop = 'converged';
      break;
    }
    const n = blocking.length;
    if (u4 && n >= 3 && blockers >= blocking[n - 2]! && blocking[n - 2]! >= blocking[n - 3]!) {
      stop = 'escalated';
      break;
    }
    if (side.cap !== null && round >= side.cap) {
      stop = 'capped';
      break;
    }
    if (round === p.maxRounds) break;

    // Rework.
    if (falseBlockers === blockers) wasted++;
    const next: number[] = [];
    for (let d = 0; d < D; d++) {
      const from = blockedBy[d]!;
      if (from === -1) continue;
      if (defectDraws[d * 3]! < p.fixSuccess) open[d] = 0;
      if (defectDraws[d * 3 + 1]! < p.oscillation) next.push(otherReviewer(defectDraws[d * 3 + 2]!, from, R));
    }
    minorFixes(p, open, demoted, blockedBy, defectDraws);
    for (let k = 0; k < spawns.length; k += 3) {
      if (spawns[k]! < p.oscillation) next.push(otherReviewer(spawns[k + 1]!, spawns[k + 2]!, R));
    }
    for (let k = 0; k < survivingConflicts.length; k++) {
      const owner = survivingConflicts[k]!;
      const uFix = conflictDraws[k * 3]!;
      if (uFix < 0) {
        next.push(owner); // refuted: nobody worked on it, so it comes back
        continue;
      }
      if (uFix >= p.fixSuccess) next.push(owner);
      if (conflictDraws[k * 3 + 1]! < p.oscillation) {
        next.push(otherReviewer(conflictDraws[k * 3 + 2]!, owner, R));
      }
    }
    conflicts = next;
  }

  let escaped = 0;
  for (let d = 0; d < D; d++) escaped += open[d]!;
  return { blocking, stop, rounds: blocking.length, escaped, wasted };
}
