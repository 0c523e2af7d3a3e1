/**
 * The base of revloop's named errors. Each layer declares its own classes in
 * one module (store/errors.ts, git/errors.ts, ...); the CLI turns a `code`
 * into a one-line message and an exit code.
 */

/**
 * Every code a RevloopError may carry. `src/cli/exit-codes.ts` maps each one
 * with a `Record<ErrorCode, Exit>`, so a new code does not compile until its
 * exit code is decided.
 */
export const ErrorCode = {
  // Bad input from a user (flags, config, refs, ids).
  usage: 'usage',
  config: 'config',
  reviewer_config: 'reviewer_config',
  unknown_run: 'unknown_run',
  unknown_finding: 'unknown_finding',
  already_settled: 'already_settled',
  run_busy: 'run_busy',
  bad_path: 'bad_path',
  key_exists: 'key_exists',
  bad_key_file: 'bad_key_file',
  hook_exists: 'hook_exists',
  ui_start: 'ui_start',
  // Git: the repository or its revisions are not what the command needs.
  not_a_repository: 'not_a_repository',
  unknown_ref: 'unknown_ref',
  no_merge_base: 'no_merge_base',
  diff_too_large: 'diff_too_large',
  worktree_moved: 'worktree_moved',
  worktree_conflict: 'worktree_conflict',
  fixer_history: 'fixer_history',
  ref_moved: 'ref_moved',
  checkout_not_clean: 'checkout_not_clean',
  /** A fix bundle from the ledger that does not yield the commit it was kept for. */
  fix_bundle_refused: 'fix_bundle_refused',
  git: 'git',
  // The loop.
  nothing_to_review: 'nothing_to_review',
  stopped: 'stopped',
  malformed: 'malformed',
  // The ledger: contract faults of the caller, then storage faults.
  stage_conflict: 'stage_conflict',
  ledger_conflict: 'ledger_conflict',
  illegal_transition: 'illegal_transition',
  fenced_out: 'fenced_out',
  store_locked: 'store_locked',
  store_readonly: 'store_readonly',
  store_full: 'store_full',
  store_corrupt: 'store_corrupt',
  /** A stored stage result or verdict reply fails its schema (core/stored-rows.ts). */
  stored_row_invalid: 'stored_row_invalid',
  store_unavailable: 'store_unavailable',
  // Files and forges.
  write_failed: 'write_failed',
  forge_read_only: 'forge_read_only',
  forge_refused: 'forge_refused',
  // revloop eval: a corpus that fails its schema, a case that cannot run, a judge's malformed reply.
  eval_corpus: 'eval_corpus',
  eval_case: 'eval_case',
  eval_judge: 'eval_judge',
  // The trust boundary: an input the change could have chosen (an ambiguous ref, a symlinked or
  // tracked state dir, a working-tree `store:`), or confinement required and not available.
  untrusted_input: 'untrusted_input',
  confinement_unavailable: 'confinement_unavailable',
  // The webhook service runs on a shared ledger only.
  service_needs_postgres: 'service_needs_postgres',
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

export class RevloopError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly data: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** Bad input from a user: flags, config, refs. Exit 2. */
export class UsageError extends RevloopError {
  constructor(message: string, data: Record<string, unknown> = {}) {
    super('usage', message, data);
  }
}

/**
 * An input the change under review could have chosen, where only the trusted
 * side (the base commit, the job's flags and environment, the verifier) may
 * choose: refused, never guessed around. Exit 12.
 */
export class UntrustedInputError extends RevloopError {
  constructor(message: string, data: Record<string, unknown> = {}) {
    super('untrusted_input', message, data);
  }
}

/** Confinement was required and the confined runner cannot run here. Exit 14. */
export class ConfinementUnavailableError extends RevloopError {
  constructor(message: string, data: Record<string, unknown> = {}) {
    super('confinement_unavailable', message, data);
  }
}
