/** What the per-sample fit tests import: the library, and the seeded generator the synthetic logs draw from. */

export {
  fitRoundLogs,
  fitSampleRates,
  parseFitText,
  resolveParams,
  type SampledLog,
  simulateRoundLogs,
} from '../../src/sim/index.js';
export { Mulberry32 as Mulberry32Test } from '../../src/sim/prng.js';
