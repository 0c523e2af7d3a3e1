/**
 * The simulator's parameters, its presets and their validation. Pure: the CLI
 * and the dashboard both call {@link resolveParams} with raw strings or numbers.
 */
import { STOP_RULES, type StopRule } from '../core/choices.js';
import { UsageError } from '../core/errors.js';

/** U4's rule; listed once in core (the CLI's `--stop-rule` choices read it too). */
export { STOP_RULES, type StopRule };

/** The loop upgrades (docs/sim.md, "Upgrades"): U5 repeat sampling and U6 refutation memory are opt-in. */
export const UPGRADES = ['U1', 'U2', 'U3', 'U4', 'U5', 'U6'] as const;
export type Upgrade = (typeof UPGRADES)[number];
/** What a configuration runs unless told otherwise: the four upgrades every figure in docs/sim.md uses. */
export const DEFAULT_UPGRADES: readonly Upgrade[] = Object.freeze(['U1', 'U2', 'U3', 'U4']);

/** U5's `on`: sample every call, or take the extra samples only when the first one raised a finding. */
export const SAMPLE_ON = ['all', 'blockers'] as const;
export type SampleOn = (typeof SAMPLE_ON)[number];

/** The hostility presets, listed once: PRESETS, the CLI's `--preset` choices and the lab page read this. */
export const PRESET_NAMES = ['healthy', 'hostile', 'oscillating', 'inflating'] as const;
export type PresetName = (typeof PRESET_NAMES)[number];

/** Everything one `simulate` call depends on; same params, same result. */
export interface SimParams {
  trials: number;
  seed: number;
  reviewers: number;
  /** Real defects in the diff when the loop starts. */
  defects: number;
  /** Hunks of the diff: the places a finding can sit, and the unit of "lines changed since a pass". */
  regions: number;
  /** Chance that a given reviewer can see a given defect (drawn once per trial). */
  detection: number;
  /** Chance per reviewer per round of one plausible but wrong blocker. */
  falsePositive: number;
  /** Share of real findings that state no concrete failure scenario. */
  vague: number;
  /** Share of false positives that state no concrete failure scenario (scenarios correlate with truth). */
  vagueFalse: number;
  /** Chance per reviewer per round of a nit reported as MODERATE. */
  inflation: number;
  /** Share of inflated nits that arrive with a plausible scenario and so pass U1. */
  gaming: number;
  /** Chance that one rework (or a MINOR's side fix) trips another reviewer's standard. */
  oscillation: number;
  /** Chance that one rework attempt removes what it targets. */
  fixSuccess: number;
  /** Chance that the refuter (U2) judges a blocker correctly. */
  refuterAccuracy: number;
  /** Chance that a rework round removes code (the diff shrinks by a fraction drawn in (0, 0.5]). */
  simplify: number;
  /** The baseline's round cap (reported as its own column). */
  cap: number;
  /** Simulation horizon, the same for every side: a trial still running here counts as not terminated. */
  maxRounds: number;
  /** The live policy's `stopWindow`: rounds without progress that stop the loop. */
  stopWindow: number;
  /** The live policy's `shrinkRatio`: the share the diff must shrink by to count as progress. */
  shrinkRatio: number;
  /** What U4 applies: the live loop's evidence rule (default) or the seed's count rule. */
  stopRule: StopRule;
  /** U5: review calls per reviewer per round (n). */
  samples: number;
  /** U5: a finding blocks when at least this many of the n samples raised it. */
  block: number;
  /** U5: chance that one sample raises a defect its reviewer can see (each sample independently). */
  sampleDetection: number;
  /** U5: `all` runs n samples; `blockers` runs 1, and n - 1 more only when the first raised a finding. */
  sampleOn: SampleOn;
  /** Chance that a reviewer's false positive is the same wrong claim it raised last (same region): what U6 remembers. */
  recurrence: number;
  /** The configuration's upgrades (the baseline never has any). */
  upgrades: Upgrade[];
  /** The preset the values started from, or null. */
  preset: PresetName | null;
}

/** The values used when neither a preset nor a flag sets them: a moderately hostile loop. */
export const DEFAULT_PARAMS: Readonly<SimParams> = Object.freeze({
  trials: 300,
  seed: 1,
  reviewers: 3,
  defects: 4,
  regions: 40,
  detection: 0.75,
  falsePositive: 0.15,
  vague: 0.3,
  vagueFalse: 0.6,
  inflation: 0.1,
  gaming: 0.1,
  oscillation: 0.15,
  fixSuccess: 0.8,
  refuterAccuracy: 0.85,
  simplify: 0.1,
  cap: 10,
  maxRounds: 30,
  stopWindow: 2,
  shrinkRatio: 0.2,
  stopRule: 'evidence',
  samples: 3,
  block: 2,
  sampleDetection: 0.8,
  sampleOn: 'all',
  recurrence: 0,
  upgrades: [...DEFAULT_UPGRADES],
  preset: null,
});

/** The environment: what a preset sets and what `--fit` estimates. */
export const ENVIRONMENT_KEYS = [
  'reviewers',
  'defects',
  'regions',
  'detection',
  'falsePositive',
  'vague',
  'vagueFalse',
  'inflation',
  'gaming',
  'oscillation',
  'fixSuccess',
  'refuterAccuracy',
  'simplify',
] as const;
export type Environment = Pick<SimParams, (typeof ENVIRONMENT_KEYS)[number]>;

/**
 * Presets change the environment only. `healthy` is a calibrated team with a
 * fixer and a refuter that are good but not perfect, so a stop rule can still
 * fire on it by bad luck (its false-escalation rate is reported).
 */
export const PRESETS: Readonly<Record<PresetName, Readonly<Environment>>> = Object.freeze({
  healthy: {
    reviewers: 3,
    defects: 3,
    regions: 40,
    detection: 0.8,
    falsePositive: 0.02,
    vague: 0.1,
    vagueFalse: 0.6,
    inflation: 0.02,
    gaming: 0.1,
    oscillation: 0.02,
    fixSuccess: 0.9,
    refuterAccuracy: 0.95,
    simplify: 0.1,
  },
  hostile: {
    reviewers: 3,
    defects: 4,
    regions: 40,
    detection: 0.7,
    falsePositive: 0.35,
    vague: 0.4,
    vagueFalse: 0.7,
    inflation: 0.3,
    gaming: 0.2,
    oscillation: 0.1,
    fixSuccess: 0.7,
    refuterAccuracy: 0.85,
    simplify: 0.1,
  },
  oscillating: {
    reviewers: 3,
    defects: 3,
    regions: 40,
    detection: 0.8,
    falsePositive: 0.05,
    vague: 0.3,
    vagueFalse: 0.6,
    inflation: 0.05,
    gaming: 0.1,
    oscillation: 0.85,
    fixSuccess: 0.9,
    refuterAccuracy: 0.9,
    simplify: 0.1,
  },
  inflating: {
    reviewers: 3,
    defects: 3,
    regions: 40,
    detection: 0.8,
    falsePositive: 0.05,
    vague: 0.2,
    vagueFalse: 0.6,
    inflation: 0.6,
    gaming: 0.3,
    oscillation: 0.1,
    fixSuccess: 0.85,
    refuterAccuracy: 0.85,
    simplify: 0.1,
  },
});

type NumericKey = Exclude<keyof SimParams, 'upgrades' | 'preset' | 'stopRule' | 'sampleOn'>;

/** Raw values as they come from flags or a form: strings or numbers, all optional. */
export type SimOverrides = Partial<Record<NumericKey, string | number>> & {
  upgrades?: string | readonly string[];
  stopRule?: string;
  sampleOn?: string;
};

interface NumberRule {
  flag: string;
  kind: 'int' | 'prob';
  min?: number;
  max?: number;
}

const RULES: Record<NumericKey, NumberRule> = {
  trials: { flag: '--trials', kind: 'int', min: 1, max: 100_000 },
  seed: { flag: '--seed', kind: 'int', min: 0, max: 4_294_967_295 },
  reviewers: { flag: '--reviewers', kind: 'int', min: 1, max: 50 },
  defects: { flag: '--defects', kind: 'int', min: 0, max: 1000 },
  regions: { flag: '--regions', kind: 'int', min: 1, max: 1000 },
  detection: { flag: '--detection', kind: 'prob' },
  falsePositive: { flag: '--false-positive', kind: 'prob' },
  vague: { flag: '--vague', kind: 'prob' },
  vagueFalse: { flag: '--vague-false', kind: 'prob' },
  inflation: { flag: '--inflation', kind: 'prob' },
  gaming: { flag: '--gaming', kind: 'prob' },
  oscillation: { flag: '--oscillation', kind: 'prob' },
  fixSuccess: { flag: '--fix-success', kind: 'prob' },
  refuterAccuracy: { flag: '--refuter-accuracy', kind: 'prob' },
  simplify: { flag: '--simplify', kind: 'prob' },
  cap: { flag: '--cap', kind: 'int', min: 1, max: 1000 },
  maxRounds: { flag: '--max-rounds', kind: 'int', min: 1, max: 1000 },
  stopWindow: { flag: '--stop-window', kind: 'int', min: 1, max: 100 },
  shrinkRatio: { flag: '--shrink-ratio', kind: 'prob' },
  samples: { flag: '--samples', kind: 'int', min: 1, max: 15 },
  block: { flag: '--block', kind: 'int', min: 1, max: 15 },
  sampleDetection: { flag: '--sample-detection', kind: 'prob' },
  recurrence: { flag: '--recurrence', kind: 'prob' },
};

/** Every key a caller may override (the CLI maps each flag to one). */
export const OVERRIDE_KEYS = [
  ...(Object.keys(RULES) as NumericKey[]),
  'upgrades',
  'stopRule',
  'sampleOn',
] as const;

/** The flag that sets a numeric parameter (for messages that name it). */
export const flagOf = (key: NumericKey): string => RULES[key].flag;

const NUMERIC = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

function parseNumber(raw: string | number, rule: NumberRule): number {
  const n = typeof raw === 'number' ? raw : NUMERIC.test(raw.trim()) ? Number(raw.trim()) : Number.NaN;
  const shown = JSON.stringify(raw);
  if (rule.kind === 'prob') {
    if (!Number.isFinite(n) || n < 0 || n > 1) {
      throw new UsageError(`${rule.flag}: expected a probability between 0 and 1, got ${shown}`, {
        flag: rule.flag,
      });
    }
    return n;
  }
  if (!Number.isInteger(n) || n < (rule.min ?? 0) || n > (rule.max ?? Number.MAX_SAFE_INTEGER)) {
    throw new UsageError(`${rule.flag}: expected an integer from ${rule.min} to ${rule.max}, got ${shown}`, {
      flag: rule.flag,
    });
  }
  return n;
}

/** Parses `U1,U3` (any case, spaces allowed) or `none`; unknown names are a usage error. */
export function parseUpgrades(raw: string | readonly string[]): Upgrade[] {
  const parts = (typeof raw === 'string' ? raw.split(',') : [...raw]).map((p) => p.trim().toUpperCase());
  if (parts.length === 1 && (parts[0] === 'NONE' || parts[0] === '')) return [];
  const out = new Set<Upgrade>();
  for (const p of parts) {
    if (!(UPGRADES as readonly string[]).includes(p)) {
      throw new UsageError(
        `--upgrades: expected a comma-separated list of ${UPGRADES.join(', ')} or "none", got ${JSON.stringify(p)}`,
        { flag: '--upgrades' },
      );
    }
    out.add(p as Upgrade);
  }
  return UPGRADES.filter((u) => out.has(u));
}

function parseStopRule(raw: string): StopRule {
  if (!(STOP_RULES as readonly string[]).includes(raw)) {
    throw new UsageError(
      `--stop-rule: expected one of ${STOP_RULES.join(', ')}, got ${JSON.stringify(raw)}`,
      {
        flag: '--stop-rule',
      },
    );
  }
  return raw as StopRule;
}

function parseSampleOn(raw: string): SampleOn {
  if (!(SAMPLE_ON as readonly string[]).includes(raw)) {
    throw new UsageError(`--sample-on: expected one of ${SAMPLE_ON.join(', ')}, got ${JSON.stringify(raw)}`, {
      flag: '--sample-on',
    });
  }
  return raw as SampleOn;
}

/** The preset's environment; an unknown name is a usage error naming `--preset`. */
export function presetEnvironment(preset: string): Environment {
  if (!(PRESET_NAMES as readonly string[]).includes(preset)) {
    throw new UsageError(
      `--preset: expected one of ${PRESET_NAMES.join(', ')}, got ${JSON.stringify(preset)}`,
      {
        flag: '--preset',
      },
    );
  }
  return { ...PRESETS[preset as PresetName] };
}

/**
 * Builds validated parameters: defaults, then the preset's values (or a
 * fitted environment), then each explicit override. Throws UsageError naming
 * the flag of the first bad value.
 */
export function resolveParams(
  preset?: string | null,
  overrides: SimOverrides = {},
  environment?: Partial<Environment> & Partial<Pick<SimParams, 'sampleDetection' | 'samples'>>,
): SimParams {
  let base: SimParams = { ...DEFAULT_PARAMS, upgrades: [...DEFAULT_PARAMS.upgrades] };
  if (preset !== undefined && preset !== null) {
    base = { ...base, ...presetEnvironment(preset), preset: preset as PresetName };
  }
  if (environment) base = { ...base, ...environment };
  const out: SimParams = { ...base };
  for (const key of Object.keys(RULES) as NumericKey[]) {
    const raw = overrides[key];
    if (raw !== undefined) out[key] = parseNumber(raw, RULES[key]);
  }
  if (overrides.upgrades !== undefined) out.upgrades = parseUpgrades(overrides.upgrades);
  // A team fitted from sampled logs sampled: its per-sample rates mean something only under U5.
  else if (environment?.samples !== undefined && !out.upgrades.includes('U5')) {
    out.upgrades = UPGRADES.filter((u) => u === 'U5' || out.upgrades.includes(u));
  }
  if (overrides.stopRule !== undefined) out.stopRule = parseStopRule(overrides.stopRule);
  if (overrides.sampleOn !== undefined) out.sampleOn = parseSampleOn(overrides.sampleOn);
  // A fitted n smaller than the default threshold lowers the threshold with it unless --block is given.
  if (overrides.block === undefined && out.block > out.samples) out.block = out.samples;
  return validateParams(out);
}

/** Checks every value of already-typed params (the dashboard builds them directly); returns them. */
export function validateParams(p: SimParams): SimParams {
  for (const key of Object.keys(RULES) as NumericKey[]) parseNumber(p[key], RULES[key]);
  parseUpgrades(p.upgrades);
  parseStopRule(p.stopRule);
  parseSampleOn(p.sampleOn);
  if (p.block > p.samples) {
    throw new UsageError(`--block: must be at most --samples (${p.samples}), got ${p.block}`, {
      flag: '--block',
    });
  }
  if (p.maxRounds < p.cap) {
    throw new UsageError(`--max-rounds: must be at least the cap (${p.cap}), got ${p.maxRounds}`, {
      flag: '--max-rounds',
    });
  }
  return p;
}
