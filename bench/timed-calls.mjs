// Shared by the loop benches: wraps the reviewers `deps` creates so that every
// agent call is timed as the controller sees it. Not a bench itself (run.mjs
// runs only *.bench.mjs).

/** Calls `onCall({ role, start, end })` (performance.now() times) after each agent call. */
export function timeAgentCalls(deps, onCall) {
  const create = deps.createReviewer;
  deps.createReviewer = (cfg, c) => {
    const r = create(cfg, c);
    return {
      ...r,
      name: r.name,
      usesCheckout: r.usesCheckout,
      async call(req) {
        const start = performance.now();
        try {
          return await r.call(req);
        } finally {
          onCall({ role: c.role, start, end: performance.now() });
        }
      },
    };
  };
}
