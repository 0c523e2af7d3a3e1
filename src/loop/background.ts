/**
 * Work the loop starts beside an agent call (readying the checkout, reading
 * the diffs the next decision needs). Starting a git process blocks the event
 * loop for a moment, so it is deferred until the current turn has started the
 * call; the agent's wait then hides it.
 */
export function inBackground<T>(work: () => Promise<T>): Promise<T> {
  const p = new Promise<void>((resolve) => setImmediate(resolve)).then(work);
  // Observed here so a failure is never unhandled; it is kept for whoever awaits it.
  p.catch(() => undefined);
  return p;
}
