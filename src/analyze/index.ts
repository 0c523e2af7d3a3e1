/**
 * Loop Lab's analyzer: round logs to convergence and reviewer calibration
 * (docs/sim.md). Imports nothing from Node, so the dashboard runs it as is.
 */
export {
  type AnalyzedRound,
  type AnalyzeResult,
  analyzeParsed,
  analyzeRoundLog,
  FEW_BLOCKERS,
  INFLATING_RATE,
  NOISY_RATE,
  type ReviewerCalibration,
  readCalibration,
} from './analyze.js';
export { RoundLogError } from './errors.js';
export { analyzeChartSpec, analyzeVerdict, cellText, renderAnalyzeReport } from './report.js';
export {
  jsonPath,
  type ParsedRoundLog,
  parseJsonText,
  parseRoundLog,
  parseRoundLogText,
  parseWith,
  RoundLogFindingSchema,
  RoundLogSchema,
  SEVERITIES,
} from './schema.js';
export { countRuleProgress, countRuleStep, liveStopAt } from './stop-rule.js';
