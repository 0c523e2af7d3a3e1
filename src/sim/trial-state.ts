/**
 * The state of one simulated loop and its round events (docs/sim.md, "The
 * events of one round"). Scope is a property of lines: every finding sits on
 * one of the diff's regions, and a region remembers the last round rework
 * changed it. All state is bounded: an open conflict is a (reviewer, region)
 * pair, so no parameter can grow it past reviewers x regions.
 */
import type { PriorBlocker, ProgressFacts, RaisedFinding } from '../core/progress.js';
import type { SimParams, Upgrade } from './params.js';
import { Mulberry32, slotUniform, streamSeed } from './prng.js';

/** How a trial ended: `running` means it was still going at the horizon (not terminated). */
export type TrialStop = 'converged' | 'escalated' | 'capped' | 'running';

export interface TrialOutcome {
  /** Blocking findings after each round's gating and refutation, round 1 first. */
  blocking: number[];
  stop: TrialStop;
  rounds: number;
  /** Genuine defects still in the code when the loop stopped, seen or not: they ship. */
  shippedDefects: number;
  /** Genuine conflicts between reviewers' standards still open at the stop: they ship too. */
  shippedConflicts: number;
  /** Rework rounds that spent work on at least one false blocker. */
  wasted: number;
  /** False blockers (false positives, inflated nits) reworked. */
  falseReworks: number;
  /** Escalated, though the same trial without the stop rule converges before the horizon. */
  falseEscalation: boolean;
  /** Accounting: every genuine finding ends fixed or shipped. */
  defectsFixed: number;
  conflictsBorn: number;
  conflictsFixed: number;
  /** Conflict findings U3 put out of scope (the line rule keeps a conflict born of rework in scope: 0). */
  conflictsDemoted: number;
  /** Reviewer calls: one per reviewer per round, or U5's samples. */
  reviewCalls: number;
  /** Refuter calls (U2): one per finding judged, none for a finding U6 remembered. */
  refuterCalls: number;
  /** Findings U6 answered from memory instead of calling the refuter. */
  memoryHits: number;
}

// Stream lanes of a round: the fixed-count review draws, then draws keyed by item (slotUniform).
const LANE_MAIN = 0;
const LANE_CONFLICTS = 1;
const LANE_REWORK = 2;
// U5's samples and the recurrence draws have lanes of their own, so turning them on leaves the other draws alone.
const LANE_SAMPLES = 3;
const LANE_RECUR = 4;
const DEFECT = 0;
const FALSE = 1;
const CONFLICT = 2;
// What became of a raised finding.
const BLOCKED = 0;
const REFUTED = 1;
const GATED = 2;
const SCOPED = 3;
/** Raised by fewer than U5's `block` samples and not sent to the refuter: reported, never blocking. */
const SAMPLED = 4;

/** One finding as a simulated round log carries it (the export's fields `analyze` and `--fit` read). */
export interface SimLogFinding {
  reviewer: string;
  severity: 'MAJOR' | 'MODERATE';
  /** U5: how many of the reviewer's samples raised it, of how many that ran. */
  reproduction?: { seen: number; of: number };
  overturned: boolean;
  refuted: boolean;
  demotedBy: 'no_scenario' | 'scope_lock' | null;
  blockedInRound: boolean;
  file: string;
  line: number;
}
/** Regions lie this many lines apart in the facts given to core, well beyond its re-raise slack. */
const LINE_STEP = 10;
/** The diff's changed lines per region at the start, and its growth per rework round. */
const LINES_PER_REGION = 20;
const GROWTH = 0.02;
const NAMES = Array.from({ length: 50 }, (_, i) => `reviewer-${i + 1}`);
const NO_CHECKS: string[] = [];

/** Picks a reviewer other than `from` (the same one when there is only one reviewer). */
function otherReviewer(u: number, from: number, reviewers: number): number {
  if (reviewers < 2) return from;
  const t = Math.floor(u * (reviewers - 1));
  return t >= from ? t + 1 : t;
}

export class TrialState {
  readonly blocking: number[] = [];
  blockerCount = 0;
  private readonly R: number;
  private readonly D: number;
  private readonly G: number;
  private readonly u1: boolean;
  private readonly u2: boolean;
  private readonly u3: boolean;
  private readonly u5: boolean;
  private readonly u6: boolean;
  private readonly samples: number;
  private readonly need: number;
  private readonly sampleRng = new Mulberry32();
  /** Per defect: how many of this reviewer's samples raised it this round. */
  private readonly seenBy: Int32Array;
  private fpSeen = 0;
  private nitSeen = 0;
  private ran = 1;
  /** U6: the round each claim was refuted in (0: not remembered), by defect, false claim, nit and conflict. */
  private readonly memDefect: Int32Array;
  private readonly memFalse: Int32Array;
  private readonly memNit: Int32Array;
  private readonly memConflict: Int32Array;
  /** The region of each reviewer's last false claim (-1: none), which a recurring false positive repeats. */
  private readonly lastFalse: Int32Array;
  private reviewCalls = 0;
  private refuterCalls = 0;
  private memoryHits = 0;
  private readonly rng = new Mulberry32();
  private readonly visible: Uint8Array;
  private readonly defectRegion: Int32Array;
  private readonly order: Int32Array;
  private readonly open: Uint8Array;
  private readonly conflict: Uint8Array;
  private openConflicts = 0;
  /** Round whose rework last changed the region (0: only the change itself). */
  private readonly changedAt: Int32Array;
  /** Last round the reviewer passed (reported nothing at all), 0 when never. */
  private readonly passedAt: Int32Array;
  private readonly blockedBy: Int32Array;
  private readonly demoted: Uint8Array;
  private readonly reported: Int32Array;
  // This round's blockers (kind, reviewer, region, item), the findings raised, last round's blockers.
  private bN = 0;
  private readonly bKind: Int32Array;
  private readonly bRev: Int32Array;
  private readonly bReg: Int32Array;
  private readonly bItem: Int32Array;
  private rN = 0;
  private readonly rRev: Int32Array;
  private readonly rReg: Int32Array;
  /** Per raised finding: reported MODERATE (1) or MAJOR (0), and what became of it (a FATE). */
  private readonly rModerate: Uint8Array;
  private readonly rFate: Uint8Array;
  private readonly rSeen: Int32Array;
  private readonly rOf: Int32Array;
  private pN = 0;
  private readonly pRev: Int32Array;
  private readonly pReg: Int32Array;
  private falseBlockers = 0;
  private diffBefore = 0;
  private diffLines = 0;
  private wasted = 0;
  private falseReworks = 0;
  private defectsFixed = 0;
  private conflictsBorn = 0;
  private conflictsFixed = 0;
  private conflictsDemoted = 0;

  private trial = 0;
  // The parameters the round events read, copied out of `p` once (hot loop).
  private readonly vague: number;
  private readonly vagueFalse: number;
  private readonly falsePositive: number;
  private readonly inflation: number;
  private readonly gaming: number;
  private readonly acc: number;
  private readonly seed: number;

  constructor(
    private readonly p: SimParams,
    upgrades: readonly Upgrade[],
  ) {
    const R = p.reviewers;
    const D = p.defects;
    const G = p.regions;
    this.R = R;
    this.D = D;
    this.G = G;
    this.vague = p.vague;
    this.vagueFalse = p.vagueFalse;
    this.falsePositive = p.falsePositive;
    this.inflation = p.inflation;
    this.gaming = p.gaming;
    this.acc = p.refuterAccuracy;
    this.seed = p.seed;
    this.u1 = upgrades.includes('U1');
    this.u2 = upgrades.includes('U2');
    this.u3 = upgrades.includes('U3');
    this.u5 = upgrades.includes('U5');
    this.u6 = upgrades.includes('U6');
    this.samples = this.u5 ? p.samples : 1;
    this.need = this.u5 ? p.block : 1;
    this.seenBy = new Int32Array(D);
    this.memDefect = new Int32Array(R * D);
    this.memFalse = new Int32Array(R * G);
    this.memNit = new Int32Array(R * G);
    this.memConflict = new Int32Array(R * G);
    this.lastFalse = new Int32Array(R);
    this.visible = new Uint8Array(R * D);
    this.defectRegion = new Int32Array(D);
    this.order = new Int32Array(G);
    this.open = new Uint8Array(D);
    this.conflict = new Uint8Array(R * G);
    this.changedAt = new Int32Array(G);
    this.passedAt = new Int32Array(R);
    this.blockedBy = new Int32Array(D);
    this.demoted = new Uint8Array(D);
    this.reported = new Int32Array(R);
    const most = R * D + 2 * R + R * G;
    this.bKind = new Int32Array(most);
    this.bRev = new Int32Array(most);
    this.bReg = new Int32Array(most);
    this.bItem = new Int32Array(most);
    this.rRev = new Int32Array(most);
    this.rReg = new Int32Array(most);
    this.rModerate = new Uint8Array(most);
    this.rFate = new Uint8Array(most);
    this.rSeen = new Int32Array(most);
    this.rOf = new Int32Array(most);
    this.pRev = new Int32Array(most);
    this.pReg = new Int32Array(most);
    this.diffLines = LINES_PER_REGION * G;
    this.diffBefore = this.diffLines;
  }

  /** Starts trial number `trial` (one state object serves every trial of a side: no allocation per trial). */
  reset(trial: number): this {
    const { p, R, D, G } = this;
    this.trial = trial;
    for (let g = 0; g < G; g++) this.order[g] = g;
    // Who can see which defect, and where each defect sits, are drawn once: a fresh context re-reads the same diff.
    this.rng.reseed(streamSeed(p.seed, trial, 0));
    for (let k = 0; k < R * D; k++) this.visible[k] = this.rng.next() < p.detection ? 1 : 0;
    // Defects sit in distinct hunks while there are enough (a partial shuffle), then share them.
    for (let d = 0; d < D; d++) {
      const u = this.rng.next();
      if (d >= G) {
        this.defectRegion[d] = Math.floor(u * G);
        continue;
      }
      const j = d + Math.floor(u * (G - d));
      const pick = this.order[j]!;
      this.order[j] = this.order[d]!;
      this.order[d] = pick;
      this.defectRegion[d] = pick;
    }
    this.open.fill(1);
    this.conflict.fill(0);
    this.openConflicts = 0;
    this.changedAt.fill(0);
    this.passedAt.fill(0);
    this.blocking.length = 0;
    this.blockerCount = 0;
    this.pN = 0;
    this.diffLines = LINES_PER_REGION * G;
    this.diffBefore = this.diffLines;
    this.wasted = 0;
    this.falseReworks = 0;
    this.defectsFixed = 0;
    this.conflictsBorn = 0;
    this.conflictsFixed = 0;
    this.conflictsDemoted = 0;
    this.memDefect.fill(0);
    this.memFalse.fill(0);
    this.memNit.fill(0);
    this.memConflict.fill(0);
    this.lastFalse.fill(-1);
    this.reviewCalls = 0;
    this.refuterCalls = 0;
    this.memoryHits = 0;
    return this;
  }

  /** U3 by lines: out of scope for a reviewer that passed while the region is unchanged since that pass. */
  private outOfScope(i: number, g: number): boolean {
    return this.passedAt[i]! > 0 && this.changedAt[g]! < this.passedAt[i]!;
  }

  /** Records a finding reviewer `i` reported on region `g`, seen by `seen` of the samples, and what became of it. */
  private raise(i: number, g: number, moderate: number, fate: number, seen = this.ran): void {
    this.rRev[this.rN] = i;
    this.rReg[this.rN] = g;
    this.rModerate[this.rN] = moderate;
    this.rSeen[this.rN] = seen;
    this.rOf[this.rN] = this.ran;
    this.rFate[this.rN++] = fate;
    this.reported[i]! += 1;
  }

  /**
   * U2 with U6's memory: a claim refuted earlier is refuted again without a
   * call while its region is unchanged since (a rework that edits the region
   * forgets it); otherwise the refuter is called, and a refutation is remembered.
   */
  private refutes(memory: Int32Array, slot: number, g: number, refuted: boolean, round: number): boolean {
    if (this.u6) {
      const at = memory[slot]!;
      if (at > 0 && this.changedAt[g]! < at) {
        this.memoryHits++;
        return true;
      }
    }
    this.refuterCalls++;
    if (refuted && this.u6) memory[slot] = round;
    return refuted;
  }

  /** U5's threshold: a finding some sample raised, but fewer than `block`, blocks only through the refuter (MAJOR, U2) or not at all. */
  private lone(seen: number, moderate: boolean): boolean {
    return seen < this.need && (moderate || !this.u2);
  }

  /**
   * U5: draws what each of reviewer `i`'s samples raises (a fixed count of
   * draws on the samples' own lane) and counts, per finding, the samples that
   * raised it. With `on: blockers` the n - 1 extra samples run only when the
   * first raised a finding; then the counts are of that one sample.
   */
  private sample(i: number): void {
    const { D, samples, sampleRng } = this;
    this.seenBy.fill(0);
    this.fpSeen = 0;
    this.nitSeen = 0;
    let firstRaised = false;
    for (let k = 0; k < samples; k++) {
      for (let d = 0; d < D; d++) {
        const hit =
          sampleRng.next() < this.p.sampleDetection && this.open[d] === 1 && this.visible[i * D + d] === 1;
        if (hit) this.seenBy[d]! += 1;
        if (hit && k === 0) firstRaised = true;
      }
      const fp = sampleRng.next() < this.falsePositive;
      const nit = sampleRng.next() < this.inflation;
      if (fp) this.fpSeen++;
      if (nit) this.nitSeen++;
      if (k === 0 && (fp || nit)) firstRaised = true;
    }
    if (this.p.sampleOn === 'blockers' && samples > 1 && !firstRaised && !this.ownsConflict(i)) {
      // The first sample raised nothing, so the others never ran: the reviewer reports nothing.
      this.seenBy.fill(0);
      this.fpSeen = 0;
      this.nitSeen = 0;
      this.ran = 1;
    } else this.ran = samples;
    this.reviewCalls += this.ran;
  }

  private ownsConflict(i: number): boolean {
    if (this.openConflicts === 0) return false;
    for (let g = 0; g < this.G; g++) if (this.conflict[i * this.G + g] === 1) return true;
    return false;
  }

  private block(kind: number, i: number, g: number, item: number): void {
    this.bKind[this.bN] = kind;
    this.bRev[this.bN] = i;
    this.bReg[this.bN] = g;
    this.bItem[this.bN++] = item;
    if (kind === FALSE) this.falseBlockers++;
  }

  /** Gate, scope, U5's threshold, then the refuter: the refuter is asked (and counted) only when the rest let the finding through. */
  private fate(gated: boolean, scoped: boolean, lone: boolean, u2: boolean, refute: () => boolean): number {
    if (gated) return GATED;
    if (scoped) return SCOPED;
    if (lone) return SAMPLED;
    return u2 && refute() ? REFUTED : BLOCKED;
  }

  /** This round's findings in the round-log format `analyze` and `--fit` read (line = region). */
  findings(): SimLogFinding[] {
    const out: SimLogFinding[] = [];
    for (let k = 0; k < this.rN; k++) {
      const fate = this.rFate[k]!;
      out.push({
        reviewer: NAMES[this.rRev[k]!]!,
        severity: this.rModerate[k] === 1 ? 'MODERATE' : 'MAJOR',
        ...(this.u5 ? { reproduction: { seen: this.rSeen[k]!, of: this.rOf[k]! } } : {}),
        overturned: fate === REFUTED,
        refuted: fate === REFUTED,
        demotedBy: fate === GATED ? 'no_scenario' : fate === SCOPED ? 'scope_lock' : null,
        blockedInRound: fate === BLOCKED,
        file: 'diff',
        line: this.rReg[k]! * LINE_STEP + 1,
      });
    }
    return out;
  }

  /** Review, gate and refute: afterwards `blockerCount` is the round's blocking count. */
  review(round: number): void {
    const { R, D, G, u1, u2, u3, u5, rng, acc } = this;
    rng.reseed(streamSeed(this.seed, this.trial, round, LANE_MAIN));
    const ckey = streamSeed(this.seed, this.trial, round, LANE_CONFLICTS);
    if (u5) this.sampleRng.reseed(streamSeed(this.seed, this.trial, round, LANE_SAMPLES));
    const recur = this.p.recurrence > 0 ? streamSeed(this.seed, this.trial, round, LANE_RECUR) : 0;
    this.blockedBy.fill(-1);
    this.demoted.fill(0);
    this.reported.fill(0);
    this.bN = 0;
    this.rN = 0;
    this.falseBlockers = 0;
    for (let i = 0; i < R; i++) {
      if (u5) this.sample(i);
      else this.reviewCalls++;
      for (let d = 0; d < D; d++) {
        const uVague = rng.next();
        const uRefute = rng.next();
        if (this.open[d] === 0 || this.visible[i * D + d] === 0) continue;
        const seen = u5 ? this.seenBy[d]! : 1;
        if (seen === 0) continue;
        const g = this.defectRegion[d]!;
        if (u1 && uVague < this.vague) {
          this.raise(i, g, 0, GATED, seen);
          this.demoted[d] = 1; // a MINOR now, fixed on the side
          continue;
        }
        if (this.lone(seen, false)) {
          this.raise(i, g, 0, SAMPLED, seen);
          this.demoted[d] = 1; // below the threshold it blocks nothing: a MINOR, fixed on the side
          continue;
        }
        // Under U3 a real defect stays in scope: its reviewer can say what the earlier pass missed.
        if (u2 && this.refutes(this.memDefect, i * D + d, g, uRefute >= acc, round)) {
          this.raise(i, g, 0, REFUTED, seen); // wrongly refuted: it stays in the code
          continue;
        }
        this.raise(i, g, 0, BLOCKED, seen);
        if (this.blockedBy[d] === -1) this.blockedBy[d] = i;
        this.block(DEFECT, i, g, d);
      }
      const uFp = rng.next();
      const uFpVague = rng.next();
      const uFpRefute = rng.next();
      const uFpRegion = rng.next();
      const fpSeen = u5 ? this.fpSeen : uFp < this.falsePositive ? 1 : 0;
      if (fpSeen > 0) {
        const last = this.lastFalse[i]!;
        const g =
          last >= 0 && recur !== 0 && slotUniform(recur, i, 0) < this.p.recurrence
            ? last
            : Math.floor(uFpRegion * G);
        this.lastFalse[i] = g;
        const fate = this.fate(
          u1 && uFpVague < this.vagueFalse,
          u3 && this.outOfScope(i, g),
          this.lone(fpSeen, false),
          u2,
          () => this.refutes(this.memFalse, i * G + g, g, uFpRefute < acc, round),
        );
        this.raise(i, g, 0, fate, fpSeen);
        if (fate === BLOCKED) this.block(FALSE, i, g, D + i);
      }
      const uInf = rng.next();
      const uGame = rng.next();
      const uInfRefute = rng.next();
      const uInfRegion = rng.next();
      const nitSeen = u5 ? this.nitSeen : uInf < this.inflation ? 1 : 0;
      if (nitSeen > 0) {
        const g = Math.floor(uInfRegion * G);
        // U1 is gameable: a nit that arrives with a plausible scenario passes the gate.
        const fate = this.fate(
          u1 && uGame >= this.gaming,
          u3 && this.outOfScope(i, g),
          this.lone(nitSeen, true),
          u2,
          () => this.refutes(this.memNit, i * G + g, g, uInfRefute < acc, round),
        );
        this.raise(i, g, 1, fate, nitSeen);
        if (fate === BLOCKED) this.block(FALSE, i, g, D + R + i);
      }
    }
    if (this.openConflicts > 0) {
      this.ran = this.samples; // a reviewer that owns a conflict ran every sample
      for (let k = 0; k < R * G; k++) {
        if (this.conflict[k] === 0) continue;
        const i = Math.floor(k / G);
        const g = k % G;
        // A conflict names the clause it violates: never vague, and every sample raises it.
        // Wrongly refuted, it is raised again next round (unless U6 remembers the refutation).
        const fate = this.fate(false, u3 && this.outOfScope(i, g), false, u2, () =>
          this.refutes(this.memConflict, k, g, slotUniform(ckey, k, 0) >= acc, round),
        );
        this.raise(i, g, 1, fate, this.samples);
        if (fate === SCOPED) this.conflictsDemoted++;
        if (fate === BLOCKED) this.block(CONFLICT, i, g, k);
      }
    }
    for (let i = 0; i < R; i++) if (this.reported[i] === 0) this.passedAt[i] = round;
    this.blockerCount = this.bN;
    this.blocking.push(this.bN);
  }

  /**
   * The facts the live loop's progress rule reads for this round: last round's
   * blockers (all reworked, so their lines changed), this round's findings at
   * any severity, and the diff's size before and after the rework.
   */
  progressFacts(): ProgressFacts {
    const priorBlockers: PriorBlocker[] = [];
    for (let k = 0; k < this.pN; k++) {
      const line = this.pReg[k]! * LINE_STEP + 1;
      priorBlockers.push({
        id: `b${k}`,
        reviewer: NAMES[this.pRev[k]!]!,
        file: 'diff',
        touchedByFix: true,
        newRange: { start: line, end: line },
        citedChecks: NO_CHECKS,
        disputed: false,
      });
    }
    const raised: RaisedFinding[] = [];
    for (let k = 0; k < this.rN; k++) {
      const line = this.rReg[k]! * LINE_STEP + 1;
      raised.push({ reviewer: NAMES[this.rRev[k]!]!, file: 'diff', line, endLine: line });
    }
    return {
      checksBefore: null,
      checksAfter: null,
      priorBlockers,
      raised,
      settledSince: [],
      diffLinesBefore: this.diffBefore,
      diffLinesAfter: this.diffLines,
      shrinkRatio: this.p.shrinkRatio,
    };
  }

  /** One rework attempt on region `g` for reviewer `from`'s blocker: it changes the lines and may trip another reviewer. */
  private touch(key: number, slot: number, g: number, from: number, round: number): boolean {
    this.changedAt[g] = round;
    if (slotUniform(key, slot, 1) < this.p.oscillation) {
      const k = otherReviewer(slotUniform(key, slot, 2), from, this.R) * this.G + g;
      if (this.conflict[k] === 0) {
        this.conflict[k] = 1;
        this.openConflicts++;
        this.conflictsBorn++;
      }
    }
    return slotUniform(key, slot, 0) < this.p.fixSuccess;
  }

  private fixDefect(d: number): void {
    this.open[d] = 0;
    this.defectsFixed++;
  }

  /** The fixer works on every blocker; MINOR-demoted real findings get a fix on the side. */
  rework(round: number): void {
    const { p, D, R } = this;
    const key = streamSeed(p.seed, this.trial, round, LANE_REWORK);
    if (this.falseBlockers > 0) this.wasted++;
    for (let d = 0; d < D; d++) {
      const from = this.blockedBy[d]!;
      const side = from === -1 && this.demoted[d] === 1 && this.open[d] === 1;
      if (from === -1 && !side) continue;
      if (this.touch(key, d, this.defectRegion[d]!, side ? 0 : from, round)) this.fixDefect(d);
    }
    for (let k = 0; k < this.bN; k++) {
      const kind = this.bKind[k]!;
      if (kind === DEFECT) continue;
      const item = this.bItem[k]!;
      const slot = kind === FALSE ? item : D + 2 * R + item;
      const fixed = this.touch(key, slot, this.bReg[k]!, this.bRev[k]!, round);
      if (kind === FALSE) this.falseReworks++;
      else if (fixed && this.conflict[item] === 1) {
        this.conflict[item] = 0;
        this.openConflicts--;
        this.conflictsFixed++;
      }
    }
    this.pN = this.bN;
    this.pRev.set(this.bRev.subarray(0, this.bN));
    this.pReg.set(this.bReg.subarray(0, this.bN));
    this.diffBefore = this.diffLines;
    const diffSlot = D + 2 * R + R * this.G;
    if (slotUniform(key, diffSlot, 0) < p.simplify) {
      this.diffLines = Math.max(1, Math.round(this.diffLines * (0.5 + 0.5 * slotUniform(key, diffSlot, 1))));
    } else {
      this.diffLines += Math.max(1, Math.round(this.diffLines * GROWTH));
    }
  }

  /** At convergence the MINOR-demoted real findings are fixed without another look; a failed one ships. */
  fixMinorsAtStop(round: number): void {
    const key = streamSeed(this.p.seed, this.trial, round, LANE_REWORK);
    for (let d = 0; d < this.D; d++) {
      if (this.demoted[d] === 1 && this.open[d] === 1 && slotUniform(key, d, 0) < this.p.fixSuccess) {
        this.fixDefect(d);
      }
    }
  }

  outcome(stop: TrialStop): TrialOutcome {
    let shipped = 0;
    for (let d = 0; d < this.D; d++) shipped += this.open[d]!;
    return {
      blocking: [...this.blocking],
      stop,
      rounds: this.blocking.length,
      shippedDefects: shipped,
      shippedConflicts: this.openConflicts,
      wasted: this.wasted,
      falseReworks: this.falseReworks,
      falseEscalation: false,
      defectsFixed: this.defectsFixed,
      conflictsBorn: this.conflictsBorn,
      conflictsFixed: this.conflictsFixed,
      conflictsDemoted: this.conflictsDemoted,
      reviewCalls: this.reviewCalls,
      refuterCalls: this.refuterCalls,
      memoryHits: this.memoryHits,
    };
  }
}
