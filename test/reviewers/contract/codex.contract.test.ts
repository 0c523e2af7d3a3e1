/** The codex preset under the Reviewer port contract, driven by Codex's captured event streams. */
import { expect } from 'vitest';
import { cleanupDirs } from '../call-request.js';
import { captured, everyCaptureUsed, PINS, runnerVariants } from './captured-envelopes.js';
import { type AdapterContract, detailHas, runReviewerContract } from './reviewer-contract.js';

const served = (r: unknown) => expect(r).toMatchObject({ modelId: PINS.codex });
const faults: AdapterContract<null>['faults'] = {
  reply: [captured('codex', 'success', { check: served }), captured('codex', 'findings', { check: served })],
  rate_limited: [captured('codex', '429', { check: detailHas('429') })],
  unavailable: [captured('codex', '500'), captured('codex', '503')],
  connection: {
    skip: 'revloop opens no connection here: Codex does, retries it (Reconnecting... n/m) and reports the failed turn (reconnects -> unavailable, classify.test.ts); no such stream was captured from the real CLI',
  },
  timeout: [captured('codex', 'hang')],
  truncated: {
    skip: 'no stream cut was captured from the real CLI: Codex words it "stream disconnected before completion", classed truncated in classify.test.ts; the loopback model server cannot cut a stream yet',
  },
  malformed: [captured('codex', 'malformed')],
  refused: {
    skip: 'Codex events carry no refusal signal: a refusal is an agent message that fails the reply schema (malformed), never a pass',
  },
  model_drift: [captured('codex', 'rerouted', { check: detailHas('"gpt-loopback-other"') })],
  ...runnerVariants('codex'),
};

runReviewerContract<null>({
  adapter: 'codex',
  setup: async () => null,
  teardown: async () => cleanupDirs(),
  faults,
});
everyCaptureUsed('codex', faults);
