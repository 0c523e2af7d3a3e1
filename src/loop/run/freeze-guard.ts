/**
 * Invariant 4's shortcut, kept by one owner: a passed freeze check stays
 * current for its head until the next agent attempt (nothing but an agent, or
 * a push the next check catches, can change what it read). The checks
 * themselves are in freeze.ts.
 */
export class FreezeGuard {
  /** Agent attempts made so far in this process. */
  private attempts = 0;
  /** `head:attempts` of the last passed check. */
  private passedAt: string | null = null;

  /** An agent attempt is about to start: every passed check goes stale. */
  noteAttempt(): void {
    this.attempts++;
  }

  /** Whether a full check passed for `head` with no attempt since. */
  isCurrent(head: string): boolean {
    return this.passedAt === this.mark(head);
  }

  /**
   * What a check of `head` starting now sees; handed to `passed` when it
   * passes, so an attempt begun while it ran leaves it stale.
   */
  mark(head: string): string {
    return `${head}:${this.attempts}`;
  }

  /** A full check that began at `mark` passed. */
  passed(mark: string): void {
    this.passedAt = mark;
  }
}
