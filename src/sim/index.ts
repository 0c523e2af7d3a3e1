/**
 * Loop Lab's simulator: a seeded Monte-Carlo model of the review loop
 * (docs/sim.md). Imports nothing from Node, so the dashboard runs it as is.
 */

export {
  FITTED,
  type FitEstimate,
  type FitFinding,
  type FitLog,
  type FitResult,
  type Fitted,
  fitRoundLogs,
  renderFitReport,
} from './fit.js';
export { parseFitText } from './fit-input.js';
export {
  fitSampleRates,
  MIN_SAMPLED_FINDINGS,
  type RateEstimate,
  type SampledFinding,
  type SampledLog,
  type SampleFit,
} from './fit-samples.js';
export {
  DEFAULT_PARAMS,
  DEFAULT_UPGRADES,
  ENVIRONMENT_KEYS,
  type Environment,
  flagOf,
  OVERRIDE_KEYS,
  PRESET_NAMES,
  PRESETS,
  type PresetName,
  parseUpgrades,
  presetEnvironment,
  resolveParams,
  SAMPLE_ON,
  type SampleOn,
  type SimOverrides,
  type SimParams,
  STOP_RULES,
  type StopRule,
  UPGRADES,
  type Upgrade,
  validateParams,
} from './params.js';
export { mulberry32, stream, streamSeed, type Uniform } from './prng.js';
export {
  configName,
  OUTCOME_ROWS,
  renderSimReport,
  SIDES,
  type SideName,
  sideLabels,
  simChartSpec,
} from './report.js';
export { type SimRoundLog, simulateRoundLogs } from './sim-logs.js';
export { type Interval, type SideSummary, type SimResult, simulate } from './simulate.js';
export { bootstrapMeans, quantileSorted, wilson } from './stats.js';
export {
  renderSweepReport,
  type SamplePoint,
  type SampleSweep,
  SWEEP_RATIOS,
  SWEEP_SAMPLES,
  SWEEP_WINDOWS,
  type SweepPoint,
  type SweepResult,
  sweep,
  sweepSamples,
} from './sweep.js';
export {
  type RoundRecord,
  runTrial,
  type SideSpec,
  type TrialOutcome,
  type TrialRun,
  TrialState,
  type TrialStop,
} from './trial.js';
