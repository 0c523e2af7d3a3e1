/**
 * Seeded randomness for the simulator. Small, fast and identical in Node and
 * the browser, so the same seed gives the same numbers in both homes.
 */

/** A source of uniform numbers in [0, 1). */
export type Uniform = () => number;

/** mulberry32: a 32-bit generator, plenty for a Monte-Carlo of a few thousand draws per trial. */
export function mulberry32(seed: number): Uniform {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** murmur3's finaliser: spreads a 32-bit value so nearby inputs give unrelated seeds. */
function fmix32(h: number): number {
  let x = h >>> 0;
  x ^= x >>> 16;
  x = Math.imul(x, 0x85ebca6b);
  x ^= x >>> 13;
  x = Math.imul(x, 0xc2b2ae35);
  x ^= x >>> 16;
  return x >>> 0;
}

/**
 * Derives the seed of one sub-stream from the run's seed and a path of small
 * integers (trial, round, lane). Each round of each trial gets its own stream,
 * so the baseline and the configuration draw the same numbers for the same
 * round even after their states have drifted apart (common random numbers).
 */
export function streamSeed(seed: number, ...path: number[]): number {
  let h = fmix32(seed ^ 0x9e3779b9);
  for (const p of path) h = fmix32((h ^ Math.imul(p + 1, 0x27d4eb2f)) >>> 0);
  return h;
}

/**
 * A reseedable mulberry32 (same numbers as {@link mulberry32}): the simulator
 * reseeds one object per round instead of allocating a closure, which keeps
 * 300 trials well inside the bench's budget.
 */
export class Mulberry32 {
  private a = 0;
  constructor(seed = 0) {
    this.reseed(seed);
  }
  reseed(seed: number): this {
    this.a = seed >>> 0;
    return this;
  }
  next(): number {
    this.a = (this.a + 0x6d2b79f5) >>> 0;
    let t = this.a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
}

/** A generator for one sub-stream (see {@link streamSeed}). */
export const stream = (seed: number, ...path: number[]): Uniform => mulberry32(streamSeed(seed, ...path));

/**
 * Draw `k` of slot `slot` under a stream key: a counter-based uniform in [0, 1).
 * The model keys draws of things whose number varies (open conflicts, reworked
 * blockers) by what they are, not by their order, so two sides whose states
 * differ still draw the same number for the same item.
 */
export function slotUniform(key: number, slot: number, k: number): number {
  return fmix32((key + Math.imul(slot * 4 + k + 1, 0x9e3779b1)) >>> 0) / 4294967296;
}
