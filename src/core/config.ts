/**
 * The configuration contract of DESIGN.md as a schema. Unknown keys are
 * errors, so a typo never silently weakens a review. Defaults live here and
 * nowhere else.
 */
import { z } from 'zod';
import { INCOMPLETE_CONCLUSIONS, REVIEW_EVENTS } from './choices.js';
import { globProblem } from './ignore.js';
import { MAX_SAMPLES, majorityOf, SAMPLE_WHEN } from './samples.js';
import type { SampleRule } from './types.js';

const argv = z.array(z.string().min(1)).min(1);

export const priceSchema = z.strictObject({
  /** USD per million input tokens. */
  inputPerMTok: z.number().nonnegative(),
  /** USD per million output tokens. */
  outputPerMTok: z.number().nonnegative(),
  /** USD per million input tokens read from a prompt cache; unset: priced as input (never under-counted). */
  cachedInputPerMTok: z.number().nonnegative().optional(),
  /** USD per million input tokens written to a prompt cache; unset: 1.25 × input (Anthropic's 5-minute rate). */
  cacheWritePerMTok: z.number().nonnegative().optional(),
});

/**
 * What each adapter needs besides its name. One table for the loader's check
 * and for the shipped JSON Schema (as `if`/`then`), so the two cannot drift.
 * `command` is also the default adapter, so it needs `command` when
 * `adapter` is left out; claude-code and codex have a default executable.
 */
const ADAPTER_NEEDS = {
  command: 'command',
  scripted: 'script',
  openai: 'model',
  anthropic: 'model',
} as const;
type NeedyAdapter = keyof typeof ADAPTER_NEEDS;
const DEFAULT_ADAPTER: NeedyAdapter = 'command';

const agentFields = {
  adapter: z
    .enum(['command', 'openai', 'anthropic', 'scripted', 'claude-code', 'codex'])
    .default(DEFAULT_ADAPTER),
  /** command, claude-code, codex: the executable and its arguments (no shell). */
  command: argv
    .optional()
    .describe(
      'The executable and its arguments, run without a shell. Required for adapter "command" (the default).',
    ),
  /** A pinned model id; a reply naming another model is model drift. */
  model: z
    .string()
    .min(1)
    .optional()
    .describe(
      'A pinned model id; a reply naming another model is model drift. Required for "openai" and "anthropic".',
    ),
  /** openai, anthropic: endpoint base URL. */
  baseURL: z.url().optional(),
  /** Name of the environment variable holding the API key (never the key itself). */
  apiKeyEnv: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name')
    .optional(),
  maxTokens: z.number().int().positive().optional(),
  prices: priceSchema.optional(),
  /** scripted: path (in the repository, or absolute) of the recorded replies. */
  script: z
    .string()
    .min(1)
    .optional()
    .describe(
      'Path (in the repository, or absolute) of the recorded replies. Required for adapter "scripted".',
    ),
  /** Extra instructions appended to the role's prompt. */
  instructions: z.string().optional(),
  /** Whether a verdict answered for a byte-identical call is reused (reuseOf). */
  reuse: z
    .enum(['prompt', 'never'])
    .optional()
    .describe(
      '"prompt" declares that the agent reads nothing but its prompt (needed for command, scripted, claude-code and codex agents), so a verdict answered for a byte-identical call in the same repository is reused instead of calling again; "never" makes every call. Default: review.reuse for openai and anthropic agents, "never" for the others. Not for the fixer.',
    ),
  /** command, claude-code, codex: variables of revloop's environment the agent's process is also given. */
  env: z
    .array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name'))
    .optional()
    .describe(
      "Names of environment variables the agent's process is given besides the allowlist (PATH, HOME, locale, proxies, ...) and its adapter's own (claude-code: ANTHROPIC_*, CLAUDE_CODE_*; codex: OPENAI_API_KEY, CODEX_*). Nothing else of revloop's environment reaches it.",
    ),
};

function requireAdapterFields(
  a: {
    adapter: string;
    command?: string[] | undefined;
    script?: string | undefined;
    model?: string | undefined;
  },
  ctx: z.RefinementCtx,
) {
  const key = Object.hasOwn(ADAPTER_NEEDS, a.adapter) ? ADAPTER_NEEDS[a.adapter as NeedyAdapter] : null;
  if (key && !a[key])
    ctx.addIssue({ code: 'custom', message: `adapter "${a.adapter}" needs "${key}"`, path: [key] });
}

/** ADAPTER_NEEDS as JSON Schema: one `if` (this adapter) / `then` (that key) per adapter. */
function adapterNeedsJsonSchema(): Record<string, unknown>[] {
  return Object.entries(ADAPTER_NEEDS).map(([adapter, key]) => ({
    // An absent adapter is the default one, so only the default's `if` matches without `adapter`.
    if: {
      properties: { adapter: { const: adapter } },
      ...(adapter === DEFAULT_ADAPTER ? {} : { required: ['adapter'] }),
    },
    // biome-ignore lint/suspicious/noThenProperty: JSON Schema's own keyword; this object is data, never awaited.
    then: { required: [key] },
  }));
}

/**
 * Repeat sampling: a reviewer called `n` times on the same prompt; a blocker
 * blocks only when `block` of them found it (core/samples.ts). `block`
 * defaults to a majority; `on: blockers` draws the others only when the first
 * raised a blocker.
 */
const samplesSchema = z
  .strictObject({
    n: z.number().int().min(1).max(MAX_SAMPLES).describe(`Calls on the same prompt, 1 to ${MAX_SAMPLES}.`),
    block: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe('Samples a MODERATE must appear in to block, 1 to n (default: a majority of n).'),
    on: z
      .enum(SAMPLE_WHEN)
      .default('always')
      .describe('always: n calls each time; blockers: the other n - 1 only when the first raised a blocker.'),
  })
  .superRefine((s, ctx) => {
    if (s.block !== undefined && s.block > s.n)
      ctx.addIssue({ code: 'custom', message: `must be at most n (${s.n})`, path: ['block'] });
  })
  .transform((s): SampleRule => ({ n: s.n, block: s.block ?? majorityOf(s.n), on: s.on }));

export const reviewerConfigSchema = z
  .strictObject({
    name: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/, 'letters, digits, "_", "." or "-"'),
    ...agentFields,
    /** This reviewer's repeat sampling, instead of `review.samples`. */
    samples: samplesSchema.optional(),
  })
  .superRefine(requireAdapterFields);

export const agentConfigSchema = z
  .strictObject({ name: z.string().min(1).optional(), ...agentFields })
  .superRefine(requireAdapterFields);

export const checkSchema = z.strictObject({
  name: z.string().min(1),
  run: argv,
  timeoutSeconds: z.number().positive().default(600),
  /** Variables of revloop's environment the check is also given (the change's code reads them: never a credential). */
  env: z
    .array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name'))
    .optional()
    .describe(
      "Names of environment variables the check is given besides the allowlist (PATH, HOME, locale, ...). The check runs the change's code: never name a credential.",
    ),
});

/** A diff over this many bytes is reviewed in chunks, split by file. */
export const DEFAULT_CHUNK_BYTES = 200_000;
/** Below this a chunk holds little more than its prompt's rules. */
const MIN_CHUNK_BYTES = 1_000;

/**
 * How a round's calls are shaped: concurrency, chunks, linguist
 * attributes, and for API reviewers how much of the changed files' content
 * their prompt carries and the sampling they are pinned to. Frozen through the
 * config digest and copied into the snapshot.
 */
/**
 * Calls of a round under way at once when `review.concurrency` is not set: one
 * per reviewer, and at least MIN_CALLS_AT_ONCE, so that a chunked review of
 * one reviewer runs that many chunks side by side instead of one after another
 * (20 chunks of 60-second calls were 20 minutes a round, past the usual wall
 * budget). Bounded, because each call of a CLI reviewer is a process of a few
 * hundred MB and API endpoints limit requests per minute.
 */
export const MIN_CALLS_AT_ONCE = 4;

export const callsAtOnce = (configured: number | null | undefined, reviewers: number): number =>
  configured ?? Math.max(reviewers, MIN_CALLS_AT_ONCE);

const REVIEW_DEFAULTS = {
  contextBytes: 100_000,
  temperature: 0,
  chunkBytes: DEFAULT_CHUNK_BYTES,
  ignoreLinguist: false,
  maxRefutedPerReply: 20,
  reuse: 'never',
} as const;
const reviewSchema = z
  .strictObject({
    /** Calls of a round under way at once (default: callsAtOnce). */
    concurrency: z.number().int().positive().optional(),
    /** A diff over this many bytes is reviewed in chunks, split by file. */
    chunkBytes: z.number().int().min(MIN_CHUNK_BYTES).default(REVIEW_DEFAULTS.chunkBytes),
    /** Also leave out what .gitattributes at the base marks linguist-generated / linguist-vendored. */
    ignoreLinguist: z.boolean().default(REVIEW_DEFAULTS.ignoreLinguist),
    contextBytes: z.number().int().nonnegative().default(REVIEW_DEFAULTS.contextBytes),
    /** null: not sent (models that accept only their own default, such as reasoning models). */
    temperature: z.number().min(0).max(2).nullable().default(REVIEW_DEFAULTS.temperature),
    /** Sent where the protocol has one (openai); the Messages API has none. */
    seed: z.number().int().optional(),
    /** Blockers of one reply the refuter is asked about; the rest stand as blockers, unrefuted. */
    maxRefutedPerReply: z
      .number()
      .int()
      .min(1)
      .max(1000)
      .default(REVIEW_DEFAULTS.maxRefutedPerReply)
      .describe(
        'Blockers of one reviewer reply sent to the refuter, one call each; the rest stand as blockers, unrefuted (default 20).',
      ),
    /** The default of each openai/anthropic agent's `reuse` (their input is the prompt); other agents declare it themselves. */
    reuse: z
      .enum(['prompt', 'never'])
      .default(REVIEW_DEFAULTS.reuse)
      .describe(
        '"prompt": reviewers and the refuter on openai or anthropic reuse a verdict answered for a byte-identical call in the same repository instead of calling again (other adapters only with their own reuse: prompt). Default "never".',
      ),
    /** Every reviewer's repeat sampling (a reviewer's own `samples` overrides it); absent: one call. */
    samples: samplesSchema.optional(),
  })
  .default(REVIEW_DEFAULTS);
/** How a run is published on a forge (src/forge); flags of `publish` override each key. */
const forgePublishFields = {
  suggestions: z
    .boolean()
    .optional()
    .describe("Offer the fixer's version of a blocker's lines as a one-click suggestion (default true)."),
  suggestionLines: z
    .number()
    .int()
    .min(1)
    .max(9999)
    .optional()
    .describe('A fixer change longer than this many lines is not offered as a suggestion (default 10).'),
  incomplete: z
    .enum(INCOMPLETE_CONCLUSIONS)
    .optional()
    .describe('The check of a run that did not complete (default neutral; never success).'),
};

export const publishSchema = z
  .strictObject({
    github: z
      .strictObject({
        event: z
          .enum(REVIEW_EVENTS)
          .optional()
          .describe('The review event when blockers stand (default COMMENT).'),
        ...forgePublishFields,
      })
      .default({}),
    gitlab: z.strictObject(forgePublishFields).default({}),
  })
  .default({ github: {}, gitlab: {} });

/** The path names the key (`ignore.2`); the message names the glob and why it does not parse. */
function globsParse(globs: string[], ctx: z.RefinementCtx) {
  globs.forEach((glob, i) => {
    const problem = globProblem(glob);
    if (problem) ctx.addIssue({ code: 'custom', message: problem, path: [i] });
  });
}

export const configSchema = z
  .strictObject({
    criteria: z.string().min(1).default('REVIEW.md'),
    store: z.string().min(1).default('sqlite:.revloop/ledger.db'),
    reviewers: z
      .array(reviewerConfigSchema)
      .min(1)
      .describe(
        'The reviewers, run in this order every round. Their names must be unique: revloop refuses a config that repeats one, which JSON Schema cannot state.',
      ),
    refuter: agentConfigSchema.optional(),
    fixer: agentConfigSchema.optional(),
    checks: z.array(checkSchema).default([]),
    budgets: z
      .strictObject({
        rounds: z.number().int().min(1).max(100).default(5),
        wallSeconds: z.number().positive().default(1800),
        costUsd: z.number().nonnegative().default(5),
      })
      .default({ rounds: 5, wallSeconds: 1800, costUsd: 5 }),
    timeouts: z
      .strictObject({ callSeconds: z.number().positive().default(300) })
      .default({ callSeconds: 300 }),
    retry: z
      .strictObject({
        attempts: z.number().int().min(1).max(10).default(3),
        baseDelayMs: z.number().int().nonnegative().default(500),
        maxDelayMs: z.number().int().positive().default(30_000),
      })
      .default({ attempts: 3, baseDelayMs: 500, maxDelayMs: 30_000 }),
    policy: z
      .strictObject({
        requireScenario: z.boolean().default(true),
        scopeLock: z.boolean().default(true),
        stopWindow: z.number().int().min(1).default(2),
        shrinkRatio: z.number().gt(0).lte(1).default(0.2),
      })
      .default({ requireScenario: true, scopeLock: true, stopWindow: 2, shrinkRatio: 0.2 }),
    /** Public keys (paths in the repository) that `verify` trusts. */
    keys: z.array(z.string().min(1)).default([]),
    /** More paths whose edit needs a named person's settlement to end clear. */
    protect: z.array(z.string().min(1)).default([]),
    // Scale: what the review leaves out, and how a round's calls are shaped.
    ignore: z
      .array(z.string())
      .default([])
      .superRefine(globsParse)
      .describe(
        'Globs of paths of the change left out of prompts, scope checks and coverage (read from the base commit); a path the fixer edits is reviewed anyway.',
      ),
    review: reviewSchema,
    admission: z
      .strictObject({
        maxActive: z.number().int().positive().optional(),
        costBudgetUsd: z.number().nonnegative().optional(),
        costWindowSeconds: z.number().int().positive().default(86_400),
      })
      .default({ costWindowSeconds: 86_400 }),
    publish: publishSchema,
    /** Checkouts kept across runs on this machine, one per concurrent run (docs/scale.md). */
    pool: z
      .strictObject({
        /** How many; 0 gives every run a checkout of its own, removed at its end. */
        size: z.number().int().min(0).max(64).default(4),
        /** Where (relative to the repository root, or absolute; never inside the repository or its git dir); default `${XDG_CACHE_HOME:-$HOME/.cache}/revloop/pool`. */
        dir: z.string().min(1).optional(),
      })
      .default({ size: 4 }),
  })
  .superRefine((c, ctx) => {
    // The fixer edits the checkout: its input is never the prompt alone, and its calls are always made.
    if (c.fixer?.reuse !== undefined)
      ctx.addIssue({
        code: 'custom',
        message: "a fixer's calls are never reused (it edits the checkout)",
        path: ['fixer', 'reuse'],
      });
    const seen = new Set<string>();
    c.reviewers.forEach((r, i) => {
      if (seen.has(r.name))
        ctx.addIssue({
          code: 'custom',
          message: `duplicate reviewer name "${r.name}"`,
          path: ['reviewers', i, 'name'],
        });
      seen.add(r.name);
    });
  });

export type Config = z.output<typeof configSchema>;

/** Adapters whose whole input is the prompt they are sent (an API request). */
const PROMPT_ONLY_ADAPTERS: readonly string[] = ['openai', 'anthropic'];

/**
 * Whether an agent's verdicts are reused: its own `reuse`, else `review.reuse`
 * for an adapter whose input is the prompt alone, else never.
 */
export const reuseOf = (
  agent: { adapter: string; reuse?: 'prompt' | 'never' | undefined },
  review: { reuse: 'prompt' | 'never' },
): 'prompt' | undefined => {
  const chosen = agent.reuse ?? (PROMPT_ONLY_ADAPTERS.includes(agent.adapter) ? review.reuse : 'never');
  return chosen === 'prompt' ? 'prompt' : undefined;
};
export type ReviewerConfig = z.output<typeof reviewerConfigSchema>;
export type AgentConfig = z.output<typeof agentConfigSchema>;
export type PublishConfig = z.output<typeof publishSchema>;

export type ConfigParse = { ok: true; config: Config } | { ok: false; path: string; message: string };

/** Validates parsed YAML/JSON; on failure names the key path (e.g. `reviewers.0.command`). */
export function parseConfig(value: unknown): ConfigParse {
  const res = configSchema.safeParse(value);
  if (res.success) return { ok: true, config: res.data };
  const issue = res.error.issues[0];
  if (!issue) return { ok: false, path: '', message: 'invalid config' };
  let path = issue.path.join('.');
  let message = issue.message;
  if (issue.code === 'unrecognized_keys') {
    const key = issue.keys[0] ?? '';
    path = path ? `${path}.${key}` : key;
    message = 'unknown key';
  }
  return { ok: false, path: path || '(root)', message };
}

/**
 * The JSON Schema shipped in schema/ for editors and CI. It states every rule
 * the loader enforces that JSON Schema can express (the per-adapter
 * requirements are refinements, which zod cannot export, so they are added
 * here from ADAPTER_NEEDS); what it cannot (unique reviewer names) is said in
 * a description.
 */
export const configJsonSchema = (): unknown =>
  z.toJSONSchema(configSchema, {
    io: 'input',
    override: ({ zodSchema, jsonSchema }) => {
      if (zodSchema === reviewerConfigSchema || zodSchema === agentConfigSchema)
        jsonSchema.allOf = adapterNeedsJsonSchema();
    },
  });
