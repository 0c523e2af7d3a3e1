/**
 * Answers first: GitHub waits at most 10 s for an answer and never retries,
 * while an admission (a fetch, a diff, a ledger write) may wait. While
 * deliveries keep arriving the admitter holds off, until the stream has been
 * quiet for QUIET_MS; it still admits at least once every MAX_HOLD_MS, so a
 * steady stream never starves the queue.
 */
export const QUIET_MS = 100;
export const MAX_HOLD_MS = 1000;

export function answersFirst(now: () => number) {
  let lastDelivery = Number.NEGATIVE_INFINITY;
  let holdingSince: number | null = null;
  return {
    delivered: () => {
      lastDelivery = now();
    },
    holdOff: (): number => {
      const t = now();
      const quietFor = t - lastDelivery;
      if (quietFor >= QUIET_MS || (holdingSince !== null && t - holdingSince >= MAX_HOLD_MS)) {
        holdingSince = null;
        return 0;
      }
      holdingSince ??= t;
      return Math.min(QUIET_MS - quietFor, MAX_HOLD_MS - (t - holdingSince));
    },
  };
}
