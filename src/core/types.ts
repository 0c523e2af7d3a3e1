/**
 * The vocabulary of DESIGN.md as plain data. States and reasons are `as const`
 * maps with derived unions so that every consumer handles every case.
 */
import type { IgnoreRules } from './ignore.js';

export const Severity = { MAJOR: 'MAJOR', MODERATE: 'MODERATE', MINOR: 'MINOR' } as const;
export type Severity = (typeof Severity)[keyof typeof Severity];

export const isBlockingSeverity = (s: Severity): boolean => s === 'MAJOR' || s === 'MODERATE';

/** Invariant 2: a run's status is kept apart from its outcome. */
export const RunStatus = {
  queued: 'queued',
  running: 'running',
  completed: 'completed',
  failed: 'failed',
  aborted: 'aborted',
  timed_out: 'timed_out',
  unknown: 'unknown',
} as const;
export type RunStatus = (typeof RunStatus)[keyof typeof RunStatus];

export const TERMINAL_STATUSES: readonly RunStatus[] = [
  'completed',
  'failed',
  'aborted',
  'timed_out',
  'unknown',
];
export const isTerminal = (s: RunStatus): boolean => TERMINAL_STATUSES.includes(s);

export const Outcome = { clear: 'clear', findings: 'findings' } as const;
export type Outcome = (typeof Outcome)[keyof typeof Outcome];

/** Why a `completed` run stopped. */
export const StopReason = {
  /** No blocker remains. */
  clear: 'clear',
  /** No fixer configured: the run is one round of review. */
  review_only: 'review_only',
  /** Invariant 8: two consecutive rounds without progress. */
  no_progress: 'no_progress',
  /** Invariant 12: rounds exhausted after a complete review. */
  budget: 'budget',
  /** Blockers wait for a named person's settlement. */
  awaiting_settlement: 'awaiting_settlement',
  /**
   * A named person upheld a blocker on a protected path (their edit is not accepted):
   * nothing waits for a person and the fixer may not touch it; the author must change it.
   */
  upheld: 'upheld',
} as const;
export type StopReason = (typeof StopReason)[keyof typeof StopReason];

/** Why a run did not complete (statuses failed, aborted, timed_out, unknown). */
export const EndReason = {
  superseded: 'superseded',
  stale_context: 'stale_context',
  rules_changed: 'rules_changed',
  model_drift: 'model_drift',
  malformed: 'malformed',
  refused: 'refused',
  missing_context: 'missing_context',
  reviewer_failed: 'reviewer_failed',
  refuter_failed: 'refuter_failed',
  retries_exhausted: 'retries_exhausted',
  fixer_failed: 'fixer_failed',
  budget_wall: 'budget_wall',
  budget_cost: 'budget_cost',
  unresumable: 'unresumable',
  interrupted: 'interrupted',
} as const;
export type EndReason = (typeof EndReason)[keyof typeof EndReason];

/** `judge`: an eval's agent deciding whether a finding describes a known defect (docs/eval.md); never part of a run. */
export const Role = { reviewer: 'reviewer', refuter: 'refuter', fixer: 'fixer', judge: 'judge' } as const;
export type Role = (typeof Role)[keyof typeof Role];
/** The roles a run's loop calls: a judge never ends a run. */
export type RunRole = Exclude<Role, 'judge'>;

export const Stage = {
  review: 'review',
  refute: 'refute',
  fix: 'fix',
  checks: 'checks',
  decide: 'decide',
} as const;
export type Stage = (typeof Stage)[keyof typeof Stage];

/** How one call ended. Everything but `ok` is a classified error (DESIGN.md, reviewer protocol). */
export const CallClass = {
  ok: 'ok',
  rate_limited: 'rate_limited',
  unavailable: 'unavailable',
  timeout: 'timeout',
  truncated: 'truncated',
  malformed: 'malformed',
  refused: 'refused',
  missing_context: 'missing_context',
  model_drift: 'model_drift',
  failed: 'failed',
  unknown: 'unknown',
} as const;
export type CallClass = (typeof CallClass)[keyof typeof CallClass];

/** Invariant 7: only these are retried, under the same call key. */
export const RETRYABLE: readonly CallClass[] = ['rate_limited', 'unavailable', 'timeout', 'truncated'];
export const isRetryable = (c: CallClass): boolean => RETRYABLE.includes(c);

/** A finding exactly as a reviewer reported it. */
export interface ReportedFinding {
  severity: Severity;
  file: string;
  line: number;
  endLine?: number | undefined;
  claim: string;
  failureScenario?: string | undefined;
  violatedClause?: string | undefined;
  missedBecause?: string | undefined;
}

export interface ReviewerReply {
  verdict: 'pass' | 'findings';
  findings: ReportedFinding[];
  model?: string | undefined;
  usage?: { costUsd?: number | undefined } | undefined;
}

/** A judge's reply: whether the finding describes the known defect, and why. */
export interface JudgeReply {
  matches: boolean;
  reason: string;
  model?: string | undefined;
  usage?: { costUsd?: number | undefined } | undefined;
}

export interface RefuterReply {
  decision: 'upheld' | 'refuted';
  reason: string;
  model?: string | undefined;
  usage?: { costUsd?: number | undefined } | undefined;
}

export interface FixerReply {
  disputed: { finding: string; reason: string }[];
  model?: string | undefined;
  usage?: { costUsd?: number | undefined } | undefined;
}

export interface ReviewerSpec {
  name: string;
  adapter: 'command' | 'openai' | 'anthropic' | 'scripted' | 'claude-code' | 'codex';
  /** Pinned model id; a reply naming another is model drift. */
  model?: string | undefined;
  promptTemplateDigest: string;
  /**
   * Digest of everything that defines this agent (adapter, command, script,
   * model, endpoint, template and instructions, criteria): a scope-lock pass
   * belongs to it, so a reviewer swapped in under the same name starts fresh.
   * Absent in runs admitted before it.
   */
  identityDigest?: string | undefined;
  /**
   * `prompt`: the agent's input is its prompt alone, so a verdict answered for
   * a byte-identical call (keys.ts reuseKey) is reused instead of calling it
   * again. Absent: every call is made (and runs admitted before it).
   */
  reuse?: 'prompt' | undefined;
  /** Repeat sampling of a reviewer (core/samples.ts); absent: one call per prompt. */
  samples?: SampleRule | undefined;
}

/** One reviewer's repeat sampling, frozen in the snapshot (core/samples.ts). */
export interface SampleRule {
  /** Calls on the same prompt. */
  n: number;
  /** Samples a blocker must appear in to block. */
  block: number;
  /** `blockers`: the other samples only when the first raised a blocker (per reviewer and chunk). */
  on: 'always' | 'blockers';
}

/** In how many of the samples drawn a finding was found. */
export interface Reproduction {
  seen: number;
  of: number;
}

export interface Budgets {
  rounds: number;
  wallSeconds: number;
  costUsd: number;
}

export interface Policy {
  requireScenario: boolean;
  scopeLock: boolean;
  stopWindow: number;
  /** Diff shrink rule: a round whose diff has at least this fraction fewer changed lines counts as progress. */
  shrinkRatio: number;
}

/** The frozen inputs of a run (DESIGN.md vocabulary). Its canonical JSON hashes to the snapshot key. */
export interface Snapshot {
  repo: string;
  change: string;
  base: string;
  head: string;
  /** The ref whose move supersedes the run (e.g. refs/heads/feature); null for a bare commit. */
  headRef: string | null;
  /** Where config and criteria were read: the base commit (default) or the head. */
  configFrom: 'base' | 'head';
  /** Digest of the named persons' settlements on this change when admitted (they carry over by fingerprint). */
  settlementsDigest: string;
  mergeBase: string;
  diffDigest: string;
  criteriaPath: string;
  criteriaDigest: string;
  configDigest: string;
  reviewers: ReviewerSpec[];
  refuter: ReviewerSpec | null;
  fixer: ReviewerSpec | null;
  checks: { name: string; run: string[] }[];
  /** Paths whose edit by the change needs a named person's settlement to end clear. */
  protectedPaths: string[];
  configPath: string;
  policy: Policy;
  budgets: Budgets;
  /** Deadline of one call. */
  callSeconds: number;
  retry: { attempts: number; baseDelayMs: number; maxDelayMs: number };
  /** What API reviewers are sent beyond the prompt's inputs (absent in runs admitted before it). */
  review?: ReviewSettings | undefined;
  controllerVersion: string;
  /** What the review leaves out (absent in runs admitted before it: nothing). */
  ignore?: IgnoreRules;
}

/** The `review:` settings a run is frozen to. */
export interface ReviewSettings {
  /** Budget of post-change file content an API reviewer's prompt carries. */
  contextBytes: number;
  /** Sampling temperature; null: not sent. */
  temperature: number | null;
  seed?: number | undefined;
  /** Calls of a round under way at once; null: one per reviewer. */
  concurrency: number | null;
  /** A diff over this many bytes is reviewed in chunks. */
  chunkBytes: number;
  /** Blockers of one reply sent to the refuter; the rest stand unrefuted (absent in runs admitted before it: all). */
  maxRefutedPerReply?: number | undefined;
}

/** Admission key components (invariant 3). */
export interface AdmissionKeyParts {
  repo: string;
  base: string;
  head: string;
  diffDigest: string;
  criteriaDigest: string;
  configDigest: string;
}
