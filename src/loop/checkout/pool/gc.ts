/**
 * `revloop gc`: removes what no live run holds. A pool lane is held exactly
 * while its lock is (the kernel drops a dead holder's), so gc takes each
 * free lane's lock itself while it removes the lane's checkout: no run can
 * take the lane half removed. Lock files stay: a lock file unlinked while
 * another process is opening it would give two runs one lane.
 */
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { discardCheckout, forgetGoneCheckouts, laneDirs, laneIndexes, tryLockLane } from './lanes.js';

export interface PoolSweep {
  pool: string;
  /** Checkouts removed (no live run held their lane). */
  removed: string[];
  /** Checkouts left: a live run holds their lane. */
  held: string[];
}

export function sweepPool(common: string, pool: string): PoolSweep {
  const sweep: PoolSweep = { pool, removed: [], held: [] };
  for (const index of laneIndexes(pool)) {
    const lock = tryLockLane(pool, index);
    if (!lock) {
      sweep.held.push(...laneDirs(pool, index));
      continue;
    }
    try {
      for (const dir of laneDirs(pool, index)) {
        discardCheckout(common, dir);
        sweep.removed.push(dir);
      }
      forgetGoneCheckouts(common, pool, index);
    } finally {
      lock.release();
    }
  }
  // Left by a removal that was cut short (the process died mid-way); nothing takes them.
  for (const e of existsSync(pool) ? readdirSync(pool) : []) {
    if (!e.startsWith('trash-')) continue;
    rmSync(join(pool, e), { recursive: true, force: true });
    sweep.removed.push(join(pool, e));
  }
  return sweep;
}
