/** Errors of the loop driver. */
import { RevloopError } from '../core/errors.js';

/** Another live process holds the run. */
export class RunBusyError extends RevloopError {
  constructor(runId: string, owner: string) {
    super('run_busy', `run ${runId} is held by ${owner}`, { runId, owner });
  }
}

/**
 * A stop was requested (SIGINT/SIGTERM) and the driver reached a point where
 * it may stop: between calls, never inside one. The run stays resumable.
 */
export class StopRequestedError extends RevloopError {
  constructor(readonly runId: string) {
    super('stopped', `run ${runId}: stop requested`, { runId });
  }
}

/**
 * The revision's diff from its merge base is empty (the head is the base, or
 * its commits add up to nothing): there is nothing a review could pass, so
 * nothing is admitted and no record is signed.
 */
export class NothingToReviewError extends RevloopError {
  constructor(
    readonly head: string,
    readonly base: string,
    detail: string,
    readonly uncommitted: number,
  ) {
    const hint =
      uncommitted > 0
        ? `; the working tree has uncommitted changes in ${uncommitted} file${uncommitted === 1 ? '' : 's'}: commit them to review them`
        : '';
    super('nothing_to_review', `nothing to review: ${detail}${hint}`, { head, base, uncommitted });
  }
}

/**
 * A reply that parsed but does not hold at the revision (a finding on a file
 * or line that is not there): the call is `malformed`, never retried.
 */
export class MalformedReplyError extends RevloopError {
  constructor(detail: string) {
    super('malformed', detail);
  }
}

/**
 * A completed run's record (or escalation report) could not be written. The
 * ledger already holds the run's end; `resume` writes the files again from it.
 * Keeps the file error's code, so a bad `--out` is still a usage error.
 */
export class RunOutputError extends RevloopError {
  constructor(
    readonly runId: string,
    ended: string,
    cause: RevloopError,
    /** The run's own record, when only a copy (`--out`) failed. */
    written?: string,
  ) {
    super(
      cause.code,
      `${cause.message}; run ${runId} is ${ended} in the ledger${written ? ` and its record is ${written}` : ''}; write it again with: revloop resume ${runId}${written ? ' --out FILE' : ''}`,
      { ...cause.data, runId },
    );
  }
}
