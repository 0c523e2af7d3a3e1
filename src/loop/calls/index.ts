/**
 * The calls room: one call of one agent under its call key, with its attempts,
 * retries and recorded verdict (call.ts); calls run side by side in order
 * (concurrent-calls.ts), warming a cached prompt prefix first
 * (prefix-warming.ts), their verdicts written by group commit
 * (verdict-batch.ts); the side work that hides behind a call (side-work.ts);
 * and what the ledger holds of the run as this owner has seen it
 * (ledger-cache.ts). Other rooms import it from here only.
 */
export { type AttemptLoop, attemptUntilDone } from './attempts.js';
export { type CallContext, type CallOutcome, type CallSpec, callAgent } from './call.js';
export { inOrder, runBounded, type Settled } from './concurrent-calls.js';
export { LedgerCache } from './ledger-cache.js';
export { prefixWarming } from './prefix-warming.js';
export { besideNextCall, type CallStarts, type Deferred, SideWork } from './side-work.js';
export { VerdictBatch } from './verdict-batch.js';
