import { type ErrorCode, RevloopError } from '../core/errors.js';

/** Exit codes shared by every command (README, "Exit codes"). */
export const Exit = {
  ok: 0,
  /** review: findings; verify: policy refused; replay: diverged. */
  findings: 1,
  usage: 2,
  /** review: run not completed; verify: mismatch with the checkout. */
  notCompleted: 3,
  /** verify: bad signature, unknown key or malformed record. */
  badRecord: 4,
  /** The ledger cannot be used: locked, read-only, full or corrupt. */
  store: 5,
  /** review/enqueue: nothing to review (the head's diff from the merge base is empty). */
  nothingToReview: 6,
  /** review --apply: the run ended clear with fixes, but the branch did not get them (the message says why). */
  notApplied: 7,
  /** publish: the forge refused before anything was written (read-only token, unknown PR, 404/422). */
  publishedNothing: 8,
  /** publish: the forge refused after some writes; publishing again completes it. */
  publishedPartly: 9,
  /** A file could not be written for want of room or a failing device; the ledger is intact. */
  writeFailed: 10,
  /** eval: some cases could not run or did not complete; the report lists them and scores only the rest. */
  evalIncomplete: 11,
  /** A trust input was refused: an ambiguous ref, a symlinked or tracked `.revloop`, a working-tree `store:`/`pool:`. */
  untrustedInput: 12,
  /** verify: the record covers less than the target branch's merge base to the head. */
  narrowRecord: 13,
  /** verify --no-reuse: the record says verdicts were reused from identical earlier calls. */
  reusedVerdicts: 16,
  /** Confinement was required (`REVLOOP_CONFINE=require`, `--require-confined`) and is not available, or a record was not confined. */
  notConfined: 14,
  /** serve: the ledger is not PostgreSQL (a service is many processes sharing one queue). */
  needsPostgres: 15,
  /** A bug: an error revloop did not expect. */
  internal: 70,
} as const;
export type Exit = (typeof Exit)[keyof typeof Exit];

/**
 * The exit code of each error code that reaches the CLI's top level. Every
 * code is listed, so a new one does not compile until its exit is decided.
 * (publish turns forge refusals into 8 or 9 itself, by what was written.)
 */
const byCode: Record<ErrorCode, Exit> = {
  usage: Exit.usage,
  config: Exit.usage,
  reviewer_config: Exit.usage,
  unknown_run: Exit.usage,
  unknown_finding: Exit.usage,
  already_settled: Exit.usage,
  run_busy: Exit.usage,
  bad_path: Exit.usage,
  key_exists: Exit.usage,
  bad_key_file: Exit.usage,
  hook_exists: Exit.usage,
  ui_start: Exit.usage,
  not_a_repository: Exit.usage,
  unknown_ref: Exit.usage,
  no_merge_base: Exit.usage,
  diff_too_large: Exit.usage,
  worktree_moved: Exit.usage,
  worktree_conflict: Exit.usage,
  fixer_history: Exit.usage,
  ref_moved: Exit.usage,
  checkout_not_clean: Exit.usage,
  git: Exit.usage,
  nothing_to_review: Exit.nothingToReview,
  stopped: Exit.usage,
  malformed: Exit.usage,
  stage_conflict: Exit.usage,
  ledger_conflict: Exit.usage,
  // The table refused a move the code asked for: a bug, not the user's input.
  illegal_transition: Exit.internal,
  fenced_out: Exit.store,
  store_locked: Exit.store,
  store_readonly: Exit.store,
  store_full: Exit.store,
  store_corrupt: Exit.store,
  stored_row_invalid: Exit.store,
  store_unavailable: Exit.store,
  write_failed: Exit.writeFailed,
  forge_read_only: Exit.usage,
  forge_refused: Exit.usage,
  // A case that cannot run is listed in the report (exit 11); thrown, it is the input's fault.
  eval_corpus: Exit.usage,
  eval_case: Exit.usage,
  eval_judge: Exit.usage,
  untrusted_input: Exit.untrustedInput,
  fix_bundle_refused: Exit.untrustedInput,
  confinement_unavailable: Exit.notConfined,
  service_needs_postgres: Exit.needsPostgres,
};

export function exitCodeFor(err: unknown): Exit {
  // A code outside the map can only come from JavaScript that skipped the types: treat it as bad input, as before.
  if (err instanceof RevloopError) return byCode[err.code] ?? Exit.usage;
  return Exit.internal;
}
