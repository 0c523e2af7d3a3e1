/**
 * The admitter holds off while deliveries arrive (answers first), and never
 * for longer than MAX_HOLD_MS at a stretch: a steady stream still drains.
 */
import { describe, expect, it } from 'vitest';
import { answersFirst, MAX_HOLD_MS, QUIET_MS } from '../../src/serve/answers-first.js';

function clock() {
  let t = 10_000;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

describe('answers first', () => {
  it('admits at once when no delivery has come in', () => {
    const c = clock();
    expect(answersFirst(c.now).holdOff()).toBe(0);
  });

  it('holds off until the stream has been quiet for QUIET_MS', () => {
    const c = clock();
    const a = answersFirst(c.now);
    a.delivered();
    expect(a.holdOff()).toBe(QUIET_MS);
    c.advance(QUIET_MS - 30);
    expect(a.holdOff()).toBe(30);
    c.advance(30);
    expect(a.holdOff()).toBe(0);
  });

  it('under a stream that never pauses, admits once every MAX_HOLD_MS', () => {
    const c = clock();
    const a = answersFirst(c.now);
    let admitted = 0;
    // A delivery every 10 ms for 5 s, the admitter asking whenever its hold ends.
    let next = 0;
    for (let t = 0; t < 5000; t += 10) {
      a.delivered();
      if (t >= next) {
        const wait = a.holdOff();
        if (wait === 0) admitted++;
        next = t + Math.max(wait, 10);
        expect(wait).toBeLessThanOrEqual(MAX_HOLD_MS);
      }
      c.advance(10);
    }
    expect(admitted).toBeGreaterThanOrEqual(4);
  });
});
