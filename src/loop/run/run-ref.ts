/**
 * `refs/revloop/runs/<id>`: the run's latest landed revision. It is what a
 * user checks out to see the fixes, and what keeps the fix commits alive once
 * the run's worktrees are gone.
 *
 * A fix's move of the ref is not on the loop's path: asked for once the fix
 * passed its checks, it starts beside the next round's first call. Until it
 * lands the commit is held by the worktree it was made in (a worktree's HEAD
 * is a root for git's gc), which goes only at the run's end, after `settle`.
 * A crash in between leaves the ref behind the ledger's head; the owner that
 * finishes the run moves it then.
 */
import type { Git } from '../../ports/git.js';
import { besideNextCall, type CallStarts, type Deferred } from '../calls/index.js';

export const runRefName = (runId: string): string => `refs/revloop/runs/${runId}`;

/** Only the run's lease holder moves its ref: a lock left on it is a dead owner's (Git.updateRef). */
const SOLE_WRITER = { soleWriter: true } as const;

export class RunRefMoves {
  private chain: Promise<void> = Promise.resolve();
  /** A move waiting for the next agent call to start (at most one: calls come between fixes). */
  private waiting: Deferred<void> | null = null;
  private failed: unknown = null;
  /** Where this process last moved the ref. */
  private at: string | null = null;

  constructor(
    private readonly git: Pick<Git, 'updateRef'>,
    private readonly repoRoot: string,
    private readonly runId: string,
  ) {}

  /**
   * Moves the ref to `sha` once the next agent call is under way (a git process
   * started now would compete with the next revision's diff read for the
   * cores), or when `settle` asks first; moves happen in the order asked.
   */
  moveTo(sha: string, calls: CallStarts): void {
    this.waiting?.get();
    this.waiting = besideNextCall(calls, () => {
      this.chain = this.chain.then(() =>
        this.git.updateRef(this.repoRoot, runRefName(this.runId), sha, undefined, SOLE_WRITER).then(
          () => {
            this.at = sha;
          },
          (err: unknown) => {
            this.failed ??= err;
            throw err;
          },
        ),
      );
      return this.chain;
    });
  }

  /** The error of a move that already failed, if any (moves after it do not run). */
  failure(): unknown {
    return this.failed;
  }

  /**
   * Makes the moves asked for, then makes sure the ref holds `head` when a fix
   * made it (`head` differs from the admitted `admitted`): an earlier owner
   * may have died before its move. Throws when a move failed.
   */
  async settle(head: string, admitted: string): Promise<void> {
    await this.waiting?.get();
    await this.chain;
    if (head === admitted || this.at === head) return;
    await this.git.updateRef(this.repoRoot, runRefName(this.runId), head, undefined, SOLE_WRITER);
    this.at = head;
  }
}
