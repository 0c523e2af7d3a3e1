/** Errors of publication. The CLI turns each into one line and an exit code. */
import { RevloopError } from '../core/errors.js';

/** The forge, the pull request or the token is not named (flags or CI variables). Exit 2. */
export class ForgeTargetError extends RevloopError {
  constructor(message: string, data: Record<string, unknown> = {}) {
    super('usage', message, data);
  }
}

/**
 * The forge refused a request. `written` counts the writes that landed
 * before it: 0 means the forge holds nothing new from this publication.
 */
export class ForgeRefusedError extends RevloopError {
  constructor(
    readonly status: number | null,
    /** What was refused, e.g. "POST /repos/o/r/pulls/7/reviews (create the review)". */
    readonly what: string,
    readonly detail: string,
    readonly written: number,
  ) {
    super(
      status === 403 || status === 401 ? 'forge_read_only' : 'forge_refused',
      `${what} refused${status ? ` (${status})` : ''}: ${detail}${written ? ` after ${written} write(s); publishing again completes it` : '; nothing was published'}`,
      { status, what, written },
    );
  }

  /** The token may read but not write (a fork's pull request, a read-only scope). */
  get readOnly(): boolean {
    return (this.status === 403 || this.status === 401) && this.written === 0;
  }
}
