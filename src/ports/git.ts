/**
 * Git plumbing the loop needs. Implemented over the git binary (never a shell)
 * in src/git; nothing else in revloop runs git.
 */
import type { DiffSection } from '../core/chunks.js';

export interface ChangedFile {
  path: string;
  /** Path at the old side (differs on renames). */
  oldPath: string;
  status: 'added' | 'modified' | 'deleted' | 'renamed';
}

/** One hunk of a unified diff: line ranges in the old and new file (count 0 = pure insertion/deletion). */
export interface Hunk {
  oldStart: number;
  oldCount: number;
  newStart: number;
  newCount: number;
}

export interface FileHunks {
  path: string;
  oldPath: string;
  hunks: Hunk[];
  /** Set when git saw the file as binary: it changed, but has no line hunks. */
  binary?: boolean;
}

/** A pair git's rename detection found: the old path, the new one, and git's section for the rename. */
export interface RenameSection {
  from: string;
  to: string;
  text: string;
}

/** One read of the canonical diff (GitDiffs.diffRead). */
export interface DiffRead {
  digest: string;
  /**
   * The text as prompts carry it (a file the `leavesOut` of the read names
   * kept to its extended header); null past the read's maxBytes, or when the
   * text kept is longer than one process can hold (`textBytes` says how long).
   */
  text: string | null;
  /** Bytes of the text kept: the diff's, less the bodies of the files left out. */
  textBytes?: number;
  /**
   * Where each file's `diff --git` line starts in `text`, found while the
   * diff streamed in; only for an all-ASCII text with no binary patch (each
   * section's length is then its byte count). GitDiffs.promptSections takes it.
   */
  sectionStarts?: readonly number[];
}

/**
 * Which commit a name stands for, and what the repository is: reads of
 * revisions and refs. Changes when how revisions are named or found changes.
 */
export interface GitRevisions {
  /** Top-level directory of the repository containing `dir`; throws NotARepositoryError. */
  root(dir: string): Promise<string>;
  /**
   * The repository's identity across machines: the origin remote's URL
   * (without credentials or a trailing .git), else `file://<root>`. Admission
   * keys use it, so two CI runners with different checkout paths admit one run.
   */
  identity(root: string): Promise<string>;
  /** The branch the checkout at `root` is on (`feature/x`), or null when HEAD is detached. */
  currentBranch(root: string): Promise<string | null>;
  /** Full commit sha of a ref; throws UnknownRefError. */
  resolve(repo: string, ref: string): Promise<string>;
  /** The full name (`refs/heads/topic`) of the ref a name stands for; null for a commit id or an expression. */
  fullRefName(repo: string, rev: string): Promise<string | null>;
  /** Whether the full ref name `ref` resolves to commit `sha` (false when it is gone or moved). */
  refHolds(repo: string, ref: string, sha: string): Promise<boolean>;
  /**
   * Which of the full ref names `names` exist, exactly (no prefix or
   * shorthand matching), in the order given. Symbolic refs count.
   */
  existingRefs?(repo: string, names: readonly string[]): Promise<string[]>;
  /** Whether a commit object exists. */
  commitExists(repo: string, sha: string): Promise<boolean>;
  mergeBase(repo: string, a: string, b: string): Promise<string>;
  /** Whether the repository is a shallow clone (history cut short: a missing commit may just not be fetched). */
  isShallow?(repo: string): Promise<boolean>;
}

/**
 * What changed between two commits: the canonical diff (its digest, its text,
 * its prompt sections) and the lists of changed files, hunks and tree entries.
 * Changes when the canonical diff or a view of it changes.
 */
export interface GitDiffs {
  /**
   * sha256 (hex) of the canonical diff from `base` to `head`, computed by
   * streaming git's output: the diff is never held whole in memory.
   */
  diffDigest(repo: string, base: string, head: string): Promise<string>;
  /**
   * The digest of the canonical diff and, while it is within maxBytes, its
   * text as prompts carry it (text null past maxBytes), from one read: a new
   * revision's prompt diff and digest cost one git process. In that text each
   * binary file's base85 patch is the line git writes without `--binary`
   * (`Binary files a/x and b/x differ`); the digest is of the canonical bytes.
   */
  diffRead(
    repo: string,
    base: string,
    head: string,
    maxBytes: number,
    /**
     * Files whose section the text keeps to its extended header (the frozen
     * ignore rules: in no prompt, so their bodies are never held).
     */
    leavesOut?: (path: string) => boolean,
  ): Promise<DiffRead>;
  /** The canonical diff's text as prompts carry it (as diffRead's); throws DiffTooLargeError past maxBytes. */
  diffText(repo: string, base: string, head: string, maxBytes: number): Promise<string>;
  /**
   * The sections every prompt of a revision cuts from: diffSections' of the
   * prompt diff of `base`..`head`, with the pairs git's rename detection takes
   * among the files added and deleted whole (a file moved with an edit) shown
   * as git shows a rename. Asks git only when the diff has both.
   */
  promptSections(
    repo: string,
    base: string,
    head: string,
    diff: string,
    pieceOver: number,
    /** DiffRead.sectionStarts of `diff`, when the read found them. */
    asciiStarts?: readonly number[],
    /** The frozen ignore rules: a file deleted at a path they leave out is no rename's source. */
    leavesOut?: (path: string) => boolean,
  ): Promise<DiffSection[]>;
  /**
   * The files changed from `base` to `head` (renames followed); with `paths`, only
   * changes that touch one of them (as old or new path), each path taken literally.
   */
  changedFiles(repo: string, base: string, head: string, paths?: readonly string[]): Promise<ChangedFile[]>;
  hunks(repo: string, base: string, head: string): Promise<FileHunks[]>;
  /**
   * Every entry that differs between two commits' trees (no rename
   * detection), with both modes: what a fix changed, submodules and links
   * included.
   */
  treeChanges(repo: string, from: string, to: string): Promise<TreeChange[]>;
  /**
   * The files `to` has that `from` does not have with the same content (added
   * or modified, no rename detection), with their new blob ids.
   */
  changedBlobs?(
    repo: string,
    from: string,
    to: string,
  ): Promise<{ path: string; oid: string; mode: string }[]>;
}

/** What a commit holds: files, their sizes and tree entries, read without a checkout. */
export interface GitBlobs {
  /**
   * Contents of a file at a commit, or null when absent. `blob`: the file's
   * blob id there when the caller knows it (a canonical diff's `index` line),
   * so git looks the object up without walking the commit's trees.
   */
  readFile(repo: string, sha: string, path: string, blob?: string): Promise<Buffer | null>;
  /**
   * The size in bytes of each file at a commit id, without reading it: a
   * number for a file, null for a path that is no file there (absent, a
   * directory, a submodule). A path git cannot be asked this way (a newline in
   * it, or `sha` not a full commit id) has no entry: read it to know. `blob`
   * as for readFile.
   */
  blobSizes(
    repo: string,
    sha: string,
    files: readonly { path: string; blob?: string | undefined }[],
  ): Promise<Map<string, number | null>>;
  /**
   * The entries at and below `path` in commit `sha`, recursively, with their
   * git modes (`120000` a symlink, `160000` a submodule), never following one;
   * [] when the path is absent.
   */
  treeEntries?(repo: string, sha: string, path: string): Promise<TreeEntry[]>;
  /** What a path is at a commit, to say why a file is missing (a directory, a submodule), or null when absent. */
  pathKind?(repo: string, sha: string, path: string): Promise<'file' | 'directory' | 'submodule' | null>;
}

/**
 * The fixer's checkouts: made, bound, cleaned and reset, their edits listed
 * and committed. Changes when how a fix is made in a checkout changes.
 */
export interface GitWorktrees {
  addWorktree(repo: string, dir: string, sha: string): Promise<void>;
  removeWorktree(repo: string, dir: string): Promise<void>;
  /**
   * Writes the files of commit `sha` into `dir` (made if absent), with no git
   * dir there and without touching the repository's index or work tree.
   */
  exportTree(repo: string, sha: string, dir: string): Promise<void>;
  /**
   * Learns `dir`'s git dir from `repo`'s own records (its registration under
   * the common dir), never from the checkout's `.git`, which a role can
   * write; from then on every git run in `dir` names its git dir and work
   * tree explicitly, with hooks and fsmonitor off, and a `.git` a role wrote
   * is put back. False when `dir` is no registered checkout of `repo`.
   * (addWorktree binds the checkout it makes.)
   */
  bindWorktree(repo: string, dir: string): Promise<boolean>;
  /** Removes untracked and ignored files (after a commit of everything tracked, the worktree then holds exactly it). */
  cleanWorktree(dir: string): Promise<void>;
  /** Resets the worktree to `sha` and removes untracked files. */
  resetWorktree(dir: string, sha: string): Promise<void>;
  /**
   * Whether any index entry of the worktree is marked assume-unchanged or
   * skip-worktree: git does not look at such a file, so an edit there
   * survives `resetWorktree` (a pool checkout with one is rebuilt).
   */
  indexHidesEdits(dir: string): Promise<boolean>;
  /**
   * Paths with uncommitted edits (including untracked); `code` is porcelain
   * v1 XY, and `conflict` marks unmerged paths. In a bound checkout
   * (bindWorktree), a `.git` that is no longer git's file is an entry, and so
   * is `HEAD` when `at` is given and HEAD is not detached at it.
   */
  status(dir: string, at?: string): Promise<{ path: string; code: string; conflict?: boolean }[]>;
  /**
   * Commits every edit in the worktree as a child of `parent` (its HEAD) and
   * moves HEAD to it; returns the new sha, or null when nothing changed.
   * Commits the fixer made on top of `parent` are part of the edit (their
   * tree is committed, never the commits); HEAD anywhere else, or a merge
   * among them, is FixerHistoryError.
   */
  commitAll(dir: string, parent: string, message: string): Promise<string | null>;
}

/**
 * Writes that move refs, and the bundles that carry a fix commit to another
 * clone. Changes when how a fix lands or travels changes.
 */
export interface GitRefs {
  /**
   * Points `ref` at `sha` (compare-and-swap when `expectOld` is given). With
   * `soleWriter` the caller is the ref's one writer (a run's private ref, held
   * under its lease): a lock on the ref that git still finds after waiting for
   * it is a dead writer's (git killed with its controller), and is removed.
   */
  updateRef(
    repo: string,
    ref: string,
    sha: string,
    expectOld?: string,
    opts?: { soleWriter?: boolean },
  ): Promise<void>;
  /**
   * Fast-forwards branch `ref` from `from` to `to` as `git merge --ff-only`
   * would (compare-and-swap: RefMovedError when it is not at `from`). When a
   * checkout of the repository has it checked out, that checkout's index and
   * files follow, only when it has no uncommitted edit of a tracked file, no
   * merge or rebase under way and no untracked file `to` would overwrite
   * (CheckoutNotCleanError otherwise, with nothing moved). Returns that
   * checkout, or null when none showed the branch.
   */
  fastForward(repo: string, ref: string, from: string, to: string): Promise<{ checkout: string | null }>;
  /**
   * A git bundle of the fix commit `commit`, the HEAD of checkout `worktree`,
   * that needs only `prerequisite` (the revision the run admitted): what another
   * clone imports to have the fix (importFixBundle).
   */
  bundleFix(worktree: string, commit: string, prerequisite: string): Promise<Buffer>;
  /**
   * Fetches a bundle's tip into the private ref `ref` (under refs/revloop/) and
   * keeps it only when it is commit `expected`: FixBundleRefusedError, and the
   * ref gone, otherwise. No tags, no other ref, no hooks.
   */
  importFixBundle(repo: string, bundle: Buffer, expected: string, ref: string): Promise<void>;
  /**
   * Fetches `refspecs` (each forced into a `refs/revloop/` or `refs/remotes/` ref) from the
   * remote named `remote`, with no hooks, tags or submodules; GitError when the fetch fails.
   */
  fetchRefs(repo: string, remote: string, refspecs: readonly string[]): Promise<void>;
}

/**
 * All of git the loop needs, as src/git implements it; a consumer takes only
 * the roles it uses.
 */
export type Git = GitRevisions & GitDiffs & GitBlobs & GitWorktrees & GitRefs;

/** One entry of {@link GitBlobs.treeEntries}. */
export interface TreeEntry {
  mode: string;
  /** `blob`, `tree` or `commit` (a submodule). */
  type: string;
  oid: string;
  path: string;
}

/** One entry of {@link GitDiffs.treeChanges}; a mode of `000000` is the side where the path is absent. */
export interface TreeChange {
  path: string;
  oldMode: string;
  newMode: string;
  /** The new blob (or commit, for a submodule) id; zeros when deleted. */
  oid: string;
  /** git's letter: A, M, D or T (a type change). */
  status: string;
}
