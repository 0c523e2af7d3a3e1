/**
 * Named errors of the git adapter. Each carries a stable `code` and the data a
 * command needs to print a one-line message.
 */
import { RevloopError } from '../core/errors.js';

/** `dir` is not inside a git repository (or does not exist). */
export class NotARepositoryError extends RevloopError {
  constructor(readonly path: string) {
    super('not_a_repository', `not a git repository: ${path}`, { path });
  }
}

/** A ref or sha that does not name a commit in `repo`. */
export class UnknownRefError extends RevloopError {
  constructor(
    readonly ref: string,
    readonly repo: string,
  ) {
    super('unknown_ref', `unknown ref "${ref}" in ${repo}`, { ref, repo });
  }
}

/** The two commits share no history. */
export class NoMergeBaseError extends RevloopError {
  constructor(
    readonly a: string,
    readonly b: string,
    readonly repo: string,
    /** A shallow clone cuts history short: the merge base may exist and just not be fetched. */
    readonly shallow = false,
  ) {
    super(
      'no_merge_base',
      shallow
        ? `no merge base between ${a} and ${b} in ${repo}: it is a shallow clone, so their common history may not be fetched; deepen it (git fetch --unshallow, or actions/checkout with fetch-depth: 0) and try again`
        : `no merge base between ${a} and ${b} in ${repo}`,
      { a, b, repo, shallow },
    );
  }
}

/** The canonical diff exceeds the byte limit the caller can take (e.g. a prompt budget). */
export class DiffTooLargeError extends RevloopError {
  constructor(
    readonly base: string,
    readonly head: string,
    readonly maxBytes: number,
  ) {
    super('diff_too_large', `diff ${base}..${head} is larger than ${maxBytes} bytes`, {
      base,
      head,
      maxBytes,
    });
  }
}

/**
 * The worktree's HEAD is not the commit the controller expected: the fixer
 * committed, checked out or reset on its own. Its edits are not trusted.
 */
export class WorktreeMovedError extends RevloopError {
  constructor(
    readonly dir: string,
    readonly expected: string,
    readonly actual: string,
  ) {
    super('worktree_moved', `worktree ${dir} is at ${actual}, expected ${expected}`, {
      dir,
      expected,
      actual,
    });
  }
}

/**
 * The fixer's checkout holds history the controller cannot take as its edit:
 * HEAD is not a descendant of the revision (an amend, reset or rebase), or a
 * commit on top of it is a merge, which brings in history besides the edit.
 */
export class FixerHistoryError extends RevloopError {
  constructor(
    readonly dir: string,
    readonly revision: string,
    readonly actual: string,
    readonly why: string,
  ) {
    super('fixer_history', `the fixer rewrote history in its checkout: ${why}`, {
      dir,
      revision,
      actual,
    });
  }
}

/** The worktree holds unmerged paths; committing them would record conflict markers. */
export class WorktreeConflictError extends RevloopError {
  constructor(
    readonly dir: string,
    readonly paths: string[],
  ) {
    super('worktree_conflict', `worktree ${dir} has unmerged paths: ${paths.join(', ')}`, { dir, paths });
  }
}

/** A compare-and-swap ref update found the ref somewhere else. */
export class RefMovedError extends RevloopError {
  constructor(
    readonly ref: string,
    readonly expected: string,
    readonly actual: string | null,
  ) {
    super('ref_moved', `ref ${ref} is at ${actual ?? '(absent)'}, expected ${expected}`, {
      ref,
      expected,
      actual,
    });
  }
}

/** Any other git failure; the message carries git's first stderr line. */
export class GitError extends RevloopError {
  constructor(
    readonly command: string,
    readonly args: readonly string[],
    readonly exitCode: number | null,
    readonly stderr: string,
  ) {
    const first = stderr.split('\n').find((l) => l.trim() !== '') ?? '';
    super('git', `git ${command} failed (exit ${exitCode ?? 'signal'}): ${first.trim()}`, {
      args: [...args],
      exitCode,
      stderr: stderr.slice(0, 2000),
    });
  }
}

/**
 * A checkout that `review --apply` would fast-forward holds work of the
 * user's that the move could lose: uncommitted edits of tracked files, an
 * untracked file the fix would overwrite, or a merge or rebase under way.
 */
export class CheckoutNotCleanError extends RevloopError {
  constructor(
    readonly dir: string,
    readonly kind: 'uncommitted' | 'untracked' | 'operation',
    readonly paths: string[],
  ) {
    const what =
      kind === 'operation'
        ? `${paths.join(', ')} is under way`
        : kind === 'untracked'
          ? `untracked files would be overwritten: ${paths.join(', ')}`
          : `uncommitted changes: ${paths.join(', ')}`;
    super('checkout_not_clean', `${dir}: ${what}`, { dir, kind, paths });
  }
}

/**
 * A fix bundle kept in the ledger that git refuses, or that yields another
 * commit than the one it was kept for: nothing of it is applied.
 */
export class FixBundleRefusedError extends RevloopError {
  constructor(
    readonly expected: string,
    readonly why: string,
  ) {
    super('fix_bundle_refused', `fix bundle for commit ${expected} refused: ${why}`, { expected, why });
  }
}
