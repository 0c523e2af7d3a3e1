/** The simulation's seeded randomness: one stream per schedule, drawn in the order the schedule asks. */
import { mulberry32 } from '../../src/sim/prng.js';

export class Rng {
  private readonly u: () => number;

  constructor(seed: number) {
    this.u = mulberry32(seed);
  }

  next(): number {
    return this.u();
  }

  chance(p: number): boolean {
    return this.u() < p;
  }

  /** Uniform integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.u() * n);
  }

  pick<T>(items: readonly T[]): T {
    const x = items[this.int(items.length)];
    if (x === undefined) throw new Error('pick from an empty list');
    return x;
  }

  /** Picks a key by weight (weights need not sum to 1). */
  weighted<K extends string>(table: Readonly<Record<K, number>>): K {
    const entries = Object.entries(table) as [K, number][];
    let r = this.u() * entries.reduce((s, [, w]) => s + w, 0);
    for (const [k, w] of entries) {
      r -= w;
      if (r < 0) return k;
    }
    return (entries[entries.length - 1] as [K, number])[0];
  }
}
