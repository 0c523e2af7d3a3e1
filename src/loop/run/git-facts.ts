/**
 * What git says about the run's commits, read once each: commits are
 * immutable, so the diff of mergeBase..head, a file at a commit and whether
 * one commit is an ancestor of another never change. One memo per kind of
 * fact (memo.ts) replaces the caches each reader used to keep.
 */
import type { DiffSection } from '../../core/chunks.js';
import type { DiffRead, Git } from '../../ports/git.js';
import { Memo } from './memo.js';

/** No cap: the review chunks what one call cannot carry: cost follows the change, not a cap. */
const WHOLE_DIFF = Number.POSITIVE_INFINITY;

export class GitFacts {
  /** By head commit (the base is always the snapshot's merge base); a failure stays, its error reported once mapped. */
  private readonly diffs = new Memo<DiffRead>(true);
  private readonly digests = new Memo<string>();
  private readonly blobs = new Memo<Buffer | null>();
  private readonly ancestry = new Memo<boolean>(true);
  private readonly blobIds = new Map<string, ReadonlyMap<string, string>>();
  private readonly sections = new Memo<DiffSection[]>(true);
  private readonly fixEdits = new Memo<string[]>(true);

  constructor(
    private readonly git: Git,
    private readonly repo: string,
    private readonly mergeBase: string,
    /** What a failed diff read becomes (the run ends `missing_context`). */
    private readonly diffFailure: (err: Error) => Error,
    /** The frozen ignore rules: files no prompt carries, whose bodies a read does not keep. */
    private readonly leavesOut?: (path: string) => boolean,
    /** The change as admitted: what the ignore rules apply to (its fixes are reviewed whole). */
    private readonly admitted?: string,
  ) {}

  /**
   * The paths the ignore rules leave out that the run's fixes edited between
   * the change as admitted and `head` (sorted): the rules leave out parts of the
   * change, never what the fixer wrote, so these are reviewed like any file.
   */
  editedByFix(head: string): Promise<string[]> {
    const leavesOut = this.leavesOut;
    const admitted = this.admitted;
    if (!leavesOut || admitted === undefined || head === admitted) return Promise.resolve([]);
    return this.fixEdits.get(head, async () => {
      const changed = await this.git.changedFiles(this.repo, admitted, head).catch((err: Error) => {
        throw this.diffFailure(err);
      });
      const paths = changed.flatMap((c) =>
        c.oldPath && c.oldPath !== c.path ? [c.path, c.oldPath] : [c.path],
      );
      return [...new Set(paths.filter(leavesOut))].sort();
    });
  }

  /** The ignore rules' read filter at `head`: what the fixes edited is kept. */
  private async leavesOutAt(head: string): Promise<((path: string) => boolean) | undefined> {
    const leavesOut = this.leavesOut;
    const edited = new Set(await this.editedByFix(head));
    if (!leavesOut || edited.size === 0) return leavesOut;
    return (path) => !edited.has(path) && leavesOut(path);
  }

  /** One read of a revision's diff gives its prompt text and its digest. */
  diff(head: string): Promise<DiffRead> {
    return this.diffs.get(head, () => {
      const r = this.leavesOutAt(head).then((leavesOut) =>
        this.git.diffRead(this.repo, this.mergeBase, head, WHOLE_DIFF, leavesOut).catch((err: Error) => {
          throw this.diffFailure(err);
        }),
      );
      // The same read answers the digest.
      this.digests.seed(
        head,
        r.then((x) => x.digest),
      );
      return r;
    });
  }

  /**
   * The diff digest of mergeBase..head, from the diff read unless `fresh`:
   * then hashed again (the check before a stage's result is recorded), and
   * that read is what later askers get.
   */
  digest(head: string, fresh = false): Promise<string> {
    if (fresh) return this.digests.put(head, this.git.diffDigest(this.repo, this.mergeBase, head));
    return this.digests.get(head, () => this.diff(head).then((r) => r.digest));
  }

  /** A diff read before the run began (admission, in this process). */
  seedDiff(head: string, read: DiffRead): void {
    this.diffs.seed(head, Promise.resolve(read));
    this.digests.seed(head, Promise.resolve(read.digest));
  }

  /**
   * The sections every prompt of `head` cuts from (Git.promptSections), cut at
   * `limit`: asked once per revision, by the review's chunks and the refuter's
   * and fixer's focused diffs alike, so all of them show a file the same way.
   */
  promptSections(head: string, diff: string, limit: number): Promise<DiffSection[]> {
    return this.sections.get(`${head}\0${limit}`, async () => {
      // The starts the read found are of its own text: used only for that very string.
      const read = await this.diffs.peek(head)?.catch(() => undefined);
      const starts = read?.text === diff ? read.sectionStarts : undefined;
      const leavesOut = await this.leavesOutAt(head);
      return this.git
        .promptSections(this.repo, this.mergeBase, head, diff, limit, starts, leavesOut)
        .catch((err: Error) => {
          throw this.diffFailure(err);
        });
    });
  }

  /** Whether commit `a` exists and is an ancestor of (or equal to) `b`. */
  isAncestor(a: string, b: string): Promise<boolean> {
    return this.ancestry.get(`${a}<${b}`, () =>
      this.git
        .commitExists(this.repo, a)
        .then((ok) => (ok ? this.git.mergeBase(this.repo, a, b).then((mb) => mb === a) : false))
        .catch(() => false),
    );
  }

  /**
   * The blob ids a revision's canonical diff names for its files (the review's plan): reads of
   * those files at that revision ask git by id, and share git's cache with the review's context.
   */
  noteBlobIds(sha: string, ids: ReadonlyMap<string, string>): void {
    this.blobIds.set(sha, ids);
  }

  /** Sizes of files at a commit id, without reading them (by blob id where noted). */
  blobSizes(sha: string, paths: readonly string[]): Promise<Map<string, number | null>> {
    const ids = this.blobIds.get(sha);
    return this.git.blobSizes(
      this.repo,
      sha,
      paths.map((path) => ({ path, blob: ids?.get(path) })),
    );
  }

  /** A file at a commit id. */
  readBlob(sha: string, path: string): Promise<Buffer | null> {
    return this.blobs.get(`${sha}:${path}`, () =>
      this.git.readFile(this.repo, sha, path, this.blobIds.get(sha)?.get(path)),
    );
  }

  /**
   * A file at a commit id, read for one use and not kept (a chunk's file context):
   * kept, a 2,000-file change held every file of it until the run ended (the bench's large-change memory).
   */
  readBlobOnce(sha: string, path: string): Promise<Buffer | null> {
    return this.git.readFile(this.repo, sha, path, this.blobIds.get(sha)?.get(path));
  }
}
