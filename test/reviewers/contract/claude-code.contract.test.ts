/** The claude-code preset under the Reviewer port contract, driven by Claude Code's captured envelopes. */
import { expect } from 'vitest';
import { cleanupDirs } from '../call-request.js';
import { captured, everyCaptureUsed, PINS, runnerVariants } from './captured-envelopes.js';
import { type AdapterContract, detailHas, runReviewerContract } from './reviewer-contract.js';

const served = (r: unknown) => expect(r).toMatchObject({ modelId: PINS['claude-code'] });
const faults: AdapterContract<null>['faults'] = {
  reply: [
    captured('claude-code', 'success', { check: served }),
    captured('claude-code', 'findings', { check: served }),
  ],
  rate_limited: [captured('claude-code', '429', { check: detailHas('429') })],
  unavailable: [captured('claude-code', '500'), captured('claude-code', '529-overloaded')],
  connection: {
    skip: 'revloop opens no connection here: Claude Code does, and reports a failed one in its envelope (api_error "connection_failed" -> unavailable, classify.test.ts); no such envelope was captured from the real CLI',
  },
  timeout: [captured('claude-code', 'hang')],
  truncated: {
    skip: 'the result envelope carries no finish reason for revloop to read: a reply cut short arrives as result text that fails the schema (malformed), never a pass',
  },
  malformed: [captured('claude-code', 'malformed')],
  refused: {
    skip: 'the result envelope has no refusal signal: a refusal is final text that fails the reply schema (malformed), never a pass',
  },
  model_drift: [captured('claude-code', 'rerouted', { check: detailHas('"claude-loopback-other"') })],
  ...runnerVariants('claude-code'),
};

runReviewerContract<null>({
  adapter: 'claude-code',
  setup: async () => null,
  teardown: async () => cleanupDirs(),
  faults,
});
everyCaptureUsed('claude-code', faults);
