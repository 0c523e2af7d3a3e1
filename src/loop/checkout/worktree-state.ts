/**
 * What the controller knows about the run's checkout, kept by one owner:
 * the revision it holds with nothing else in it (null once an agent or a
 * check may have written there), the commit the controller just made of it,
 * and whether its index was looked at since this owner took it. The work on
 * the checkout is in worktree.ts.
 */
export class WorktreeState {
  private cleanAt: string | null = null;
  private committedAt: string | null = null;
  private vetted = false;

  /** Whether the checkout is known to hold exactly `sha`. */
  isCleanAt(sha: string): boolean {
    return this.cleanAt === sha;
  }

  /** Whether it is known to hold some revision untouched (no agent wrote since it was readied). */
  isKnownClean(): boolean {
    return this.cleanAt !== null;
  }

  /** It was just readied to hold exactly `sha`. */
  readiedAt(sha: string): void {
    this.cleanAt = sha;
  }

  /** An agent or a check may have written in it. */
  touched(): void {
    this.cleanAt = null;
  }

  /** The controller committed the worktree as `sha`: HEAD, index and tracked files are that commit. */
  committed(sha: string): void {
    this.committedAt = sha;
  }

  /** Whether the last commit made of it is `sha`; asked once, as readying begins (it is forgotten). */
  takeCommitted(sha: string): boolean {
    const was = this.committedAt === sha;
    this.committedAt = null;
    return was;
  }

  /** Whether its index was looked at since this owner took the checkout. */
  isVetted(): boolean {
    return this.vetted;
  }

  vet(): void {
    this.vetted = true;
  }
}
