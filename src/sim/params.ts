/**
 * The simulator's parameters, its presets and their validation. Pure: the CLI
 * and the dashboard both call {@link resolveParams} with raw strings or numbers.
 */
import { UsageError } from '../core/errors.js';

/** The four loop upgrades (docs/sim.md, "Upgrades"). */
export const UPGRADES = ['U1', 'U2', 'U3', 'U4'] as const;
export type Upgrade = (typeof UPGRADES)[number];

export const PRESET_NAMES = ['healthy', 'hostile', 'oscillating'] as const;
export type PresetName = (typeof PRESET_NAMES)[number];

/** Everything one `simulate` call depends on; same params, same result. */
export interface SimParams {
  trials: number;
  seed: number;
  reviewers: number;
  /** Real defects in the diff when the loop starts. */
  defects: number;
  /** Chance that a given reviewer can see a given defect (drawn once per trial). */
  detection: number;
  /** Chance per reviewer per round of one plausible but wrong blocker. */
  falsePositive: number;
  /** Share of findings (real or false) that state no concrete failure scenario. */
  vague: number;
  /** Chance per reviewer per round of a nit reported as MODERATE. */
  inflation: number;
  /** Chance that a blocker's rework trips another reviewer's standard. */
  oscillation: number;
  /** Chance that one rework attempt removes what it targets. */
  fixSuccess: number;
  /** Chance that the refuter (U2) judges a blocker correctly. */
  refuterAccuracy: number;
  /** The baseline's round cap. */
  cap: number;
  /** Simulation horizon: a trial still running here counts as not terminated. */
  maxRounds: number;
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
  detection: 0.75,
  falsePositive: 0.15,
  vague: 0.4,
  inflation: 0.1,
  oscillation: 0.15,
  fixSuccess: 0.8,
  refuterAccuracy: 0.85,
  cap: 10,
  maxRounds: 30,
  upgrades: [...UPGRADES],
  preset: null,
});

type Tunable = Omit<SimParams, 'trials' | 'seed' | 'cap' | 'maxRounds' | 'upgrades' | 'preset'>;

/**
 * Presets change the environment only. `healthy` is the article's healthy
 * loop: calibrated reviewers (no false positives, inflation or oscillation), a
 * fixer that lands every fix and an accurate refuter, so the blocking count
 * strictly decreases by construction and U4 can never fire.
 */
export const PRESETS: Readonly<Record<PresetName, Readonly<Tunable>>> = Object.freeze({
  healthy: {
    reviewers: 3,
    defects: 3,
    detection: 0.8,
    falsePositive: 0,
    vague: 0.1,
    inflation: 0,
    oscillation: 0,
    fixSuccess: 1,
    refuterAccuracy: 1,
  },
  hostile: {
    reviewers: 3,
    defects: 4,
    detection: 0.7,
    falsePositive: 0.35,
    vague: 0.5,
    inflation: 0.3,
    oscillation: 0.1,
    fixSuccess: 0.7,
    refuterAccuracy: 0.85,
  },
  oscillating: {
    reviewers: 3,
    defects: 3,
    detection: 0.8,
    falsePositive: 0.05,
    vague: 0.3,
    inflation: 0.05,
    oscillation: 0.85,
    fixSuccess: 0.9,
    refuterAccuracy: 0.9,
  },
});

/** Raw values as they come from flags or a form: strings or numbers, all optional. */
export type SimOverrides = Partial<
  Record<Exclude<keyof SimParams, 'upgrades' | 'preset'>, string | number>
> & {
  upgrades?: string | readonly string[];
};

interface NumberRule {
  flag: string;
  kind: 'int' | 'prob';
  min?: number;
  max?: number;
}

const RULES: Record<Exclude<keyof SimParams, 'upgrades' | 'preset'>, NumberRule> = {
  trials: { flag: '--trials', kind: 'int', min: 1, max: 100_000 },
  seed: { flag: '--seed', kind: 'int', min: 0, max: 4_294_967_295 },
  reviewers: { flag: '--reviewers', kind: 'int', min: 1, max: 50 },
  defects: { flag: '--defects', kind: 'int', min: 0, max: 1000 },
  detection: { flag: '--detection', kind: 'prob' },
  falsePositive: { flag: '--false-positive', kind: 'prob' },
  vague: { flag: '--vague', kind: 'prob' },
  inflation: { flag: '--inflation', kind: 'prob' },
  oscillation: { flag: '--oscillation', kind: 'prob' },
  fixSuccess: { flag: '--fix-success', kind: 'prob' },
  refuterAccuracy: { flag: '--refuter-accuracy', kind: 'prob' },
  cap: { flag: '--cap', kind: 'int', min: 1, max: 1000 },
  maxRounds: { flag: '--max-rounds', kind: 'int', min: 1, max: 1000 },
};

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
        `--upgrades: expected a comma-separated list of U1, U2, U3, U4 or "none", got ${JSON.stringify(p)}`,
        {
          flag: '--upgrades',
        },
      );
    }
    out.add(p as Upgrade);
  }
  return UPGRADES.filter((u) => out.has(u));
}

/**
 * Builds validated parameters: defaults, then the preset's values, then each
 * explicit override. Throws UsageError naming the flag of the first bad value.
 */
export function resolveParams(preset?: string | null, overrides: SimOverrides = {}): SimParams {
  let base: SimParams = { ...DEFAULT_PARAMS, upgrades: [...DEFAULT_PARAMS.upgrades] };
  if (preset !== undefined && preset !== null) {
    if (!(PRESET_NAMES as readonly string[]).includes(preset)) {
      throw new UsageError(
        `--preset: expected one of ${PRESET_NAMES.join(', ')}, got ${JSON.stringify(preset)}`,
        {
          flag: '--preset',
        },
      );
    }
    const name = preset as PresetName;
    base = { ...base, ...PRESETS[name], preset: name };
  }
  const out: SimParams = { ...base };
  for (const key of Object.keys(RULES) as (keyof typeof RULES)[]) {
    const raw = overrides[key];
    if (raw !== undefined) out[key] = parseNumber(raw, RULES[key]);
  }
  if (overrides.upgrades !== undefined) out.upgrades = parseUpgrades(overrides.upgrades);
  return validateParams(out);
}

/** Checks every value of already-typed params (the dashboard builds them directly); returns them. */
export function validateParams(p: SimParams): SimParams {
  for (const key of Object.keys(RULES) as (keyof typeof RULES)[]) parseNumber(p[key], RULES[key]);
  parseUpgrades(p.upgrades);
  const out = p;
  if (out.maxRounds < out.cap) {
    throw new UsageError(`--max-rounds: must be at least the cap (${out.cap}), got ${out.maxRounds}`, {
      flag: '--max-rounds',
    });
  }
  return out;
}
