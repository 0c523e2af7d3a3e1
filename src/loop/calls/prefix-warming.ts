/**
 * Reviewers run side by side, but an endpoint that caches
 * a prompt's shared prefix (point 7) caches it only once it has read it: three
 * calls of one prefix started together each pay to write it. So of the calls
 * that share a prefix (one chunk of one round) and go to such an endpoint, the
 * first starts alone and the others start when its first reply event arrives
 * (the prefix is cached by then), when it ends, or after a short bounded wait,
 * whichever comes first: a stagger of one time-to-first-byte, not a serial
 * round. Calls to agents that cache nothing (command and CLI agents) never
 * wait, nor does anything when calls run one at a time. Only start times move:
 * prompts, call keys and the order results are recorded in do not change.
 */
import type { Clock } from '../../ports/clock.js';

/** The longest a call waits for its prefix to be cached before it starts anyway (and may pay to write it). */
export const WARM_WAIT_MS = 3000;

export interface PrefixCall {
  /** Calls of one group share their prompt's prefix (the review's chunk index). */
  group: number;
  /** Whether its agent's endpoint caches a shared prefix (Reviewer.cachesPrefix). */
  caches: boolean;
}

export interface PrefixWarming {
  /** Resolves when call `i` may start. */
  ready(i: number): Promise<void>;
  /** Call `i` is starting: the hook to pass as its onFirstBytes, and `ended` to call when it settles. */
  starting(i: number): { onFirstBytes: (() => void) | undefined; ended: () => void };
}

export function prefixWarming(
  calls: readonly PrefixCall[],
  limit: number,
  sleep: Clock['sleep'],
): PrefixWarming {
  const gates = new Map<number, Gate>();
  if (limit > 1)
    calls.forEach((c, i) => {
      if (c.caches && !gates.has(c.group)) gates.set(c.group, gate(i));
    });
  const gateOf = (i: number): Gate | undefined => {
    const c = calls[i];
    return c?.caches ? gates.get(c.group) : undefined;
  };
  return {
    ready(i) {
      const g = gateOf(i);
      return g && g.warmer !== i ? g.opened : Promise.resolve();
    },
    starting(i) {
      const g = gateOf(i);
      if (!g || g.warmer !== i) return { onFirstBytes: undefined, ended: () => {} };
      sleep(WARM_WAIT_MS, g.stopTimer.signal).then(g.open, () => {});
      return { onFirstBytes: g.open, ended: g.open };
    },
  };
}

interface Gate {
  warmer: number;
  opened: Promise<void>;
  open: () => void;
  stopTimer: AbortController;
}

function gate(warmer: number): Gate {
  let resolve!: () => void;
  const opened = new Promise<void>((r) => {
    resolve = r;
  });
  const stopTimer = new AbortController();
  const open = () => {
    resolve();
    if (!stopTimer.signal.aborted) stopTimer.abort();
  };
  return { warmer, opened, open, stopTimer };
}
