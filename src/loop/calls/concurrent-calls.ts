/**
 * Agent calls of one stage run side by side, at most `limit` at a time, and
 * their outcomes come back in the order the calls were given, whatever order
 * they finished in: the stage records them in configured order, so the round
 * log, the call keys, replay and the record are those of a sequential run.
 *
 * Once a call fails (a failed outcome or a thrown error), no further call is
 * started; the calls already under way are waited for, never cancelled, so
 * each verdict they bring is recorded under its call key as it arrives (a
 * resumed run reuses it). The caller then fails the run on the first failure
 * in configured order (invariant 1: a missing verdict is never clear).
 */

export type Settled<R> = { done: true; value: R } | { done: true; error: unknown } | { done: false };

export async function runBounded<T, R>(
  items: readonly T[],
  limit: number,
  run: (item: T, index: number) => Promise<R>,
  failed: (result: R) => boolean,
): Promise<Settled<R>[]> {
  const out: Settled<R>[] = items.map(() => ({ done: false }));
  let next = 0;
  let stop = false;
  const lane = async (): Promise<void> => {
    while (!stop && next < items.length) {
      const i = next++;
      try {
        const value = await run(items[i] as T, i);
        out[i] = { done: true, value };
        if (failed(value)) stop = true;
      } catch (error) {
        out[i] = { done: true, error };
        stop = true;
      }
    }
  };
  const lanes = Math.max(1, Math.min(limit, items.length));
  await Promise.all(Array.from({ length: lanes }, lane));
  return out;
}

/**
 * The outcomes in `order` (indices into the items) up to and including the
 * first failure met in that order; a thrown error there is thrown. A call
 * never started (one after a failure) is skipped: a failure met later in the
 * order ends the run anyway.
 */
export function inOrder<R>(
  settled: readonly Settled<R>[],
  order: readonly number[],
  failed: (result: R) => boolean,
): R[] {
  const got: R[] = [];
  for (const i of order) {
    const s = settled[i];
    if (!s?.done) continue;
    if ('error' in s) throw s.error;
    got.push(s.value);
    if (failed(s.value)) break;
  }
  return got;
}
