/**
 * Revisions and objects: finding the repository, resolving refs, merge bases
 * and reading blobs.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Git, TreeChange } from '../ports/git.js';
import { blobBatchReader, blobSizeReader } from './blob-batch.js';
import type { CommonDir } from './common-dir.js';
import { NoMergeBaseError, UnknownRefError } from './errors.js';
import type { GitRunner } from './run.js';

/**
 * Refuses a revision argument git could read as an option (`--output=...`)
 * or that cannot be a ref at all. Refs reach us from config and flags.
 */
export function assertRev(repo: string, rev: string): void {
  if (rev === '' || rev.startsWith('-') || /[\0\n\r]/.test(rev)) throw new UnknownRefError(rev, repo);
}

/** Whether `rev` names a commit in `repo` (false for malformed input). */
export async function isCommit(run: GitRunner, repo: string, rev: string): Promise<boolean> {
  if (rev === '' || rev.startsWith('-') || /[\0\n\r]/.test(rev)) return false;
  const res = await run.exec(repo, ['cat-file', '-e', `${rev}^{commit}`]);
  if (res.code === 0) return true;
  // A missing repository is not a missing commit.
  if (/not a git repository|cannot change to/i.test(res.stderr)) throw run.failure(repo, ['cat-file'], res);
  return false;
}

/**
 * After a command over `revs` failed: the UnknownRefError for the first rev
 * that is not a commit, or the command's own error when they all are.
 */
export async function explainFailure(
  run: GitRunner,
  repo: string,
  revs: readonly string[],
  fallback: Error,
): Promise<Error> {
  for (const rev of revs) if (!(await isCommit(run, repo, rev))) return new UnknownRefError(rev, repo);
  return fallback;
}

const text = (b: Buffer): string => b.toString('utf8').trim();

export function revOps(
  run: GitRunner,
  commonDir: CommonDir,
): Pick<
  Git,
  | 'root'
  | 'resolve'
  | 'fullRefName'
  | 'refHolds'
  | 'commitExists'
  | 'mergeBase'
  | 'readFile'
  | 'blobSizes'
  | 'pathKind'
  | 'isShallow'
  | 'existingRefs'
  | 'treeEntries'
  | 'changedBlobs'
  | 'treeChanges'
> {
  const blobs = new Map<string, Buffer | null>();
  const batchRead = blobBatchReader(run);
  const sizeRead = blobSizeReader(run);
  const ops: ReturnType<typeof revOps> = {
    async root(dir) {
      // The common git dir comes with it: the first diff needs it, and it costs no second process.
      const out = await run.ok(dir, [
        'rev-parse',
        '--show-toplevel',
        '--path-format=absolute',
        '--git-common-dir',
      ]);
      const [top = '', common] = out.toString('utf8').trim().split('\n');
      if (common) commonDir.seed(top, common);
      return top;
    },

    async resolve(repo, ref) {
      assertRev(repo, ref);
      const res = await run.exec(repo, ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]);
      if (res.code === 0) return text(res.stdout);
      // --quiet still prints for a non-commit object ("is a tree"); only a
      // missing repository is not an unknown ref.
      if (res.code !== 1) throw run.failure(repo, ['rev-parse'], res);
      throw new UnknownRefError(ref, repo);
    },

    async fullRefName(repo, rev) {
      assertRev(repo, rev);
      const res = await run.exec(repo, ['rev-parse', '--verify', '--quiet', '--symbolic-full-name', rev]);
      const name = res.code === 0 ? text(res.stdout) : '';
      return name.startsWith('refs/') ? name : null;
    },

    async refHolds(repo, ref, sha) {
      assertRev(repo, ref);
      // The freeze check runs before and after every stage: when the ref's loose file
      // (which git reads before packed-refs) holds exactly `sha`, git would answer `sha`,
      // and no process is needed. Anything else (packed, symbolic, moved, reftable) asks git.
      if (SHARED_REF.test(ref) && !ref.split('/').some((c) => c === '' || c.startsWith('.'))) {
        // Read synchronously: a 41-byte file costs microseconds, while an async read waits
        // behind whatever else holds the event loop (starting git processes does).
        const path = join(await commonDir(repo), ref);
        let held: string | null = null;
        try {
          held = readFileSync(path, 'utf8');
        } catch {
          // not a loose ref: ask git
        }
        if (held !== null && held.trim() === sha) return true;
      }
      try {
        return (await ops.resolve(repo, ref)) === sha;
      } catch (err) {
        if (err instanceof UnknownRefError) return false;
        throw err;
      }
    },

    commitExists: (repo, sha) => isCommit(run, repo, sha),

    async existingRefs(repo, names) {
      const wanted = names.filter((n) => n.startsWith('refs/') && !/[\0\n\r*?[\\]/.test(n));
      if (wanted.length === 0) return [];
      // for-each-ref matches a pattern as a prefix up to a slash too: only exact names are kept.
      const out = await run.ok(repo, ['for-each-ref', '--format=%(refname)', ...wanted]);
      const found = new Set(out.toString('utf8').split('\n'));
      return wanted.filter((n) => found.has(n));
    },

    async treeChanges(repo, from, to) {
      assertRev(repo, from);
      assertRev(repo, to);
      const out = await run.ok(repo, ['diff-tree', '-r', '-z', '--no-renames', '--no-ext-diff', from, to]);
      // -z: ":<old mode> <new mode> <old oid> <new oid> <status>\0<path>\0" per file.
      const parts = out.toString('utf8').split('\0');
      const changes: TreeChange[] = [];
      for (let i = 0; i + 1 < parts.length; i += 2) {
        const [oldMode = '', newMode = '', , oid = '', status = ''] = (parts[i] as string)
          .replace(/^:/, '')
          .split(' ');
        changes.push({ path: parts[i + 1] as string, oldMode, newMode, oid, status });
      }
      return changes;
    },

    async changedBlobs(repo, from, to) {
      return (await ops.treeChanges(repo, from, to))
        .filter((c) => c.status === 'A' || c.status === 'M' || c.status === 'T')
        .map((c) => ({ path: c.path, oid: c.oid, mode: c.newMode }));
    },

    async treeEntries(repo, sha, path) {
      assertRev(repo, sha);
      const res = await run.exec(repo, ['ls-tree', '-r', '-t', '-z', '--full-tree', sha, '--', path]);
      if (res.code !== 0) {
        const err = await explainFailure(run, repo, [sha], run.failure(repo, ['ls-tree'], res));
        throw err;
      }
      return res.stdout
        .toString('utf8')
        .split('\0')
        .filter(Boolean)
        .map((line) => {
          const tab = line.indexOf('\t');
          const [mode = '', type = '', oid = ''] = line.slice(0, tab).split(' ');
          return { mode, type, oid, path: line.slice(tab + 1) };
        });
    },

    async mergeBase(repo, a, b) {
      assertRev(repo, a);
      assertRev(repo, b);
      const res = await run.exec(repo, ['merge-base', a, b]);
      if (res.code === 0) return text(res.stdout);
      // Exit 1 with nothing on stderr: both commits exist but share no history.
      const err = await explainFailure(run, repo, [a, b], run.failure(repo, ['merge-base'], res));
      if (err instanceof UnknownRefError || res.code !== 1) throw err;
      throw new NoMergeBaseError(a, b, repo, await isShallowRepo(run, repo));
    },

    isShallow: (repo) => isShallowRepo(run, repo),

    async pathKind(repo, sha, path) {
      assertRev(repo, sha);
      const res = await run.exec(repo, ['cat-file', '-t', `${sha}:${path}`]);
      // A submodule's commit is in its own repository, rarely in this one: cat-file cannot
      // look it up, but its parent tree names it, as a `commit` entry (mode 160000).
      if (res.code !== 0) return (await gitlinkAt(run, repo, sha, path)) ? 'submodule' : null;
      const t = text(res.stdout);
      return t === 'blob' ? 'file' : t === 'tree' ? 'directory' : t === 'commit' ? 'submodule' : null;
    },

    async blobSizes(repo, sha, files) {
      assertRev(repo, sha);
      const out = new Map<string, number | null>();
      // One long-lived batch process answers (blob-batch.ts), at a commit id only: a name that can
      // move is not asked, nor a path git cannot take (a newline). Neither gets an entry.
      if (!FULL_ID.test(sha)) return out;
      const answers = await Promise.all(files.map((f) => sizeRead(repo, objectName(sha, f.path, f.blob))));
      files.forEach((f, i) => {
        const a = answers[i];
        if (a !== undefined) out.set(f.path, a);
      });
      // All missing: as readFile does, say so when it is the commit that is.
      if (answers.length > 0 && answers.every((a) => a === null) && !(await isCommit(run, repo, sha)))
        throw new UnknownRefError(sha, repo);
      return out;
    },

    async readFile(repo, sha, path, blob) {
      assertRev(repo, sha);
      // A file at a commit id never changes: admission, the run and every freeze check read
      // the config and the criteria, and git is asked once. (A name like `main` can move.)
      // Read by a blob id, the answer is kept under that id (content-addressed: whatever path
      // asked for it); by path, under the commit and path. The id is the caller's word, so it
      // never answers a later read by path.
      const byId = blob !== undefined && FULL_ID.test(blob);
      const key = byId ? `${repo}\0${blob}` : FULL_ID.test(sha) ? `${repo}\0${sha}\0${path}` : null;
      const known = key === null ? undefined : blobs.get(key);
      if (known !== undefined) return known;
      // At a commit id, one batch process answers a burst of reads (blob-batch.ts); a name that
      // can move, or any answer but a blob, is asked one process per file, which explains failures.
      let content: Buffer | null =
        key === null ? null : ((await batchRead(repo, objectName(sha, path, blob))) ?? null);
      if (content === null) {
        const res = await run.exec(repo, ['cat-file', 'blob', `${sha}:${path}`]);
        if (res.code === 0) content = res.stdout;
        else {
          const err = await explainFailure(run, repo, [sha], run.failure(repo, ['cat-file'], res));
          if (err instanceof UnknownRefError) throw err;
          // The commit exists: the path is absent, or is a tree or submodule, not a file.
        }
      }
      if (key !== null && (content?.length ?? 0) <= BLOB_CACHE_MAX_BYTES) {
        if (blobs.size >= BLOB_CACHE_MAX) blobs.clear();
        blobs.set(key, content);
      }
      return content;
    },
  };
  return ops;
}

/** Whether `path` at commit `sha` is a gitlink: an entry of its parent tree (read whole, never a pathspec). */
async function gitlinkAt(run: GitRunner, repo: string, sha: string, path: string): Promise<boolean> {
  const cut = path.lastIndexOf('/');
  const res = await run.exec(repo, ['ls-tree', '-z', `${sha}:${cut < 0 ? '' : path.slice(0, cut)}`]);
  if (res.code !== 0) return false;
  const name = path.slice(cut + 1);
  return res.stdout
    .toString('utf8')
    .split('\0')
    .some((e) => e.startsWith('160000 commit ') && e.slice(e.indexOf('\t') + 1) === name);
}

async function isShallowRepo(run: GitRunner, repo: string): Promise<boolean> {
  const res = await run.exec(repo, ['rev-parse', '--is-shallow-repository']);
  return res.code === 0 && text(res.stdout) === 'true';
}

const FULL_ID = /^([0-9a-f]{40}|[0-9a-f]{64})$/;

/** What cat-file is asked for a file at a commit: its blob id when known (no tree walk), else `<commit>:<path>`. */
function objectName(sha: string, path: string, blob: string | undefined): string {
  return blob !== undefined && FULL_ID.test(blob) ? blob : `${sha}:${path}`;
}
const BLOB_CACHE_MAX = 256;
const BLOB_CACHE_MAX_BYTES = 256 * 1024;

/** Refs every worktree of a repository shares, kept as files under the common git dir. */
const SHARED_REF = /^refs\/(heads|tags|remotes)\//;
