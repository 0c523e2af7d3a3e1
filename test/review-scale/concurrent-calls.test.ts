/**
 * Issue 17, point 2: the bounded runner behind a round's calls. Results come
 * back in the order asked for whatever order they finish in; no more than
 * `limit` run at once; after a failure nothing new starts, and what is under
 * way is waited for (its verdict would be recorded), never dropped.
 */
import { describe, expect, it } from 'vitest';
import { inOrder, runBounded } from '../../src/loop/calls/concurrent-calls.js';

/** A call that finishes when its test says so, so no verdict depends on timing. */
function gate<T>() {
  let open!: (v: T) => void;
  const done = new Promise<T>((r) => {
    open = r;
  });
  return { done, open };
}

describe('runBounded', () => {
  it('runs up to the limit at once and returns outcomes by position, finishing order aside', async () => {
    const gates = [gate<string>(), gate<string>(), gate<string>()];
    let running = 0;
    let peak = 0;
    const started: number[] = [];
    const all = runBounded(
      [0, 1, 2],
      2,
      async (i) => {
        started.push(i);
        running++;
        peak = Math.max(peak, running);
        const v = await gates[i]?.done;
        running--;
        return v ?? '';
      },
      () => false,
    );
    await Promise.resolve();
    expect(started).toEqual([0, 1]);
    gates[1]?.open('b');
    await new Promise((r) => setImmediate(r));
    expect(started).toEqual([0, 1, 2]);
    gates[2]?.open('c');
    gates[0]?.open('a');
    const settled = await all;
    expect(peak).toBe(2);
    expect(inOrder(settled, [0, 1, 2], () => false)).toEqual(['a', 'b', 'c']);
    expect(inOrder(settled, [2, 0, 1], () => false)).toEqual(['c', 'a', 'b']);
  });

  it('starts nothing after a failure and waits for the calls under way', async () => {
    const slow = gate<string>();
    let finishedSlow = false;
    const started: number[] = [];
    const all = runBounded(
      [0, 1, 2, 3],
      2,
      async (i) => {
        started.push(i);
        if (i === 0) {
          const v = await slow.done;
          finishedSlow = true;
          return v;
        }
        return 'fail';
      },
      (v) => v === 'fail',
    );
    await new Promise((r) => setImmediate(r));
    // Item 1 failed at once: 2 and 3 never start, 0 is still under way.
    expect(started).toEqual([0, 1]);
    let settledYet = false;
    void all.then(() => {
      settledYet = true;
    });
    await new Promise((r) => setImmediate(r));
    expect(settledYet).toBe(false);
    slow.open('ok');
    const settled = await all;
    expect(finishedSlow).toBe(true);
    expect(settled.map((s) => s.done)).toEqual([true, true, false, false]);
    // Read in configured order, the outcomes stop at the first failure.
    expect(inOrder(settled, [0, 1, 2, 3], (v) => v === 'fail')).toEqual(['ok', 'fail']);
  });

  it('throws the first thrown error met in the order read, after the others settled', async () => {
    const settled = await runBounded(
      [0, 1, 2],
      3,
      async (i) => {
        if (i === 1) throw new Error('budget spent');
        return i;
      },
      () => false,
    );
    expect(settled[0]).toEqual({ done: true, value: 0 });
    expect(() => inOrder(settled, [0, 1, 2], () => false)).toThrow('budget spent');
  });
});
