/**
 * Loop Lab's simulator: a seeded Monte-Carlo model of the review loop
 * (docs/sim.md). Imports nothing from Node, so the dashboard runs it as is.
 */
export {
  DEFAULT_PARAMS,
  PRESET_NAMES,
  PRESETS,
  type PresetName,
  parseUpgrades,
  resolveParams,
  type SimOverrides,
  type SimParams,
  UPGRADES,
  type Upgrade,
  validateParams,
} from './params.js';
export { mulberry32, stream, streamSeed, type Uniform } from './prng.js';
export { configName, renderSimReport, simChartSpec } from './report.js';
export { type SideSummary, type SimResult, simulate } from './simulate.js';
export { runTrial, type SideSpec, type TrialOutcome, type TrialStop } from './trial.js';
