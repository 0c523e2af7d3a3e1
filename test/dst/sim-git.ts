/**
 * An in-memory Git port for the simulation: a commit is a map path→content
 * with a parent, named by a deterministic sha (sha1 of its parent and files),
 * so the same schedule makes the same commits. Worktrees are maps too; their
 * directories are created on disk only because the driver asks the file
 * system whether a checkout exists.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { diffSections } from '../../src/git/diff-sections.js';
import { DiffTextCollector } from '../../src/git/diff-text-collector.js';
import { GitError, RefMovedError, UnknownRefError, WorktreeMovedError } from '../../src/git/errors.js';
import { sha256 } from '../../src/io/hash.js';
import type { ChangedFile, FileHunks, Git } from '../../src/ports/git.js';
import { fileDiffText, lineHunks } from './line-diff.js';

type Files = ReadonlyMap<string, string>;

interface Commit {
  parent: string | null;
  files: Files;
}

export interface SimWorktree {
  head: string;
  files: Map<string, string>;
}

export class SimGit implements Git {
  private readonly commits = new Map<string, Commit>();
  private readonly refs = new Map<string, string>();
  private readonly worktrees = new Map<string, SimWorktree>();

  constructor(readonly repoRoot: string) {}

  /** One simulated repository: its identity is its root, and nobody has a branch checked out. */
  async identity(root: string): Promise<string> {
    return `sim:${root}`;
  }

  async currentBranch(_root: string): Promise<string | null> {
    return null;
  }

  /** Its diffs are whole files added, deleted or edited: it takes nothing for a rename. */
  async promptSections(_repo: string, _base: string, _head: string, diff: string, pieceOver: number) {
    return diffSections(diff, pieceOver);
  }

  /** A simulated checkout has no index flags that could hide an edit. */
  async indexHidesEdits(_dir: string): Promise<boolean> {
    return false;
  }

  /** Makes a commit (as a person pushing would) and returns its sha. */
  commit(parent: string | null, files: Record<string, string> | Files): string {
    const map = new Map(files instanceof Map ? files : Object.entries(files));
    const sorted = [...map.entries()].sort(([a], [b]) => (a < b ? -1 : 1));
    const sha = createHash('sha1')
      .update(JSON.stringify([parent, sorted]))
      .digest('hex');
    if (!this.commits.has(sha)) this.commits.set(sha, { parent, files: map });
    return sha;
  }

  setRef(ref: string, sha: string): void {
    this.refs.set(ref, sha);
  }

  ref(ref: string): string | undefined {
    return this.refs.get(ref);
  }

  filesAt(sha: string): Files {
    return this.get(sha).files;
  }

  /** The parents of a commit (one, or none for a root), as a contract reads them from outside the port. */
  parentsOf(sha: string): string[] {
    const parent = this.get(sha).parent;
    return parent ? [parent] : [];
  }

  /** The fixer's view: the worktree it was given, to edit in place. */
  worktree(dir: string): SimWorktree | undefined {
    return this.worktrees.get(dir);
  }

  async root(): Promise<string> {
    return this.repoRoot;
  }

  async resolve(repo: string, ref: string): Promise<string> {
    const sha = this.lookup(ref);
    if (!sha) throw new UnknownRefError(ref, repo);
    return sha;
  }

  async fullRefName(_repo: string, rev: string): Promise<string | null> {
    return this.fullName(rev);
  }

  async refHolds(_repo: string, ref: string, sha: string): Promise<boolean> {
    return this.refs.get(ref) === sha;
  }

  async commitExists(_repo: string, sha: string): Promise<boolean> {
    return this.commits.has(sha);
  }

  /** One simulated repository holds every commit: a bundle is the commit's id, importing checks it. */
  async bundleFix(_worktree: string, commit: string): Promise<Buffer> {
    return Buffer.from(commit);
  }

  async importFixBundle(_repo: string, bundle: Buffer, expected: string): Promise<void> {
    if (bundle.toString() !== expected || !this.commits.has(expected)) throw new Error('bundle refused');
  }

  async mergeBase(repo: string, a: string, b: string): Promise<string> {
    this.get(a, repo);
    this.get(b, repo);
    const mb = this.mergeBaseOf(a, b);
    if (!mb) throw new GitError('git', ['merge-base', a, b], 1, 'no merge base');
    return mb;
  }

  async diffDigest(_repo: string, base: string, head: string): Promise<string> {
    return sha256(this.diffOf(base, head));
  }

  /** Read as git's would be: in pieces, through the collector (which keeps no body of a file left out). */
  async diffRead(
    _repo: string,
    base: string,
    head: string,
    maxBytes: number,
    leavesOut?: (path: string) => boolean,
  ) {
    const text = this.diffOf(base, head);
    if (Buffer.byteLength(text) > maxBytes) return { digest: sha256(text), text: null };
    const bytes = Buffer.from(text, 'utf8');
    const collector = new DiffTextCollector({ leavesOut });
    for (let at = 0; at < bytes.length; at += 4096) collector.push(bytes.subarray(at, at + 4096));
    return { digest: sha256(text), ...collector.finish() };
  }

  async diffText(_repo: string, base: string, head: string): Promise<string> {
    return this.diffOf(base, head);
  }

  async changedFiles(_repo: string, base: string, head: string): Promise<ChangedFile[]> {
    return this.changed(base, head).map(({ path, from, to }) => ({
      path,
      oldPath: path,
      status: from === undefined ? 'added' : to === undefined ? 'deleted' : 'modified',
    }));
  }

  async hunks(_repo: string, base: string, head: string): Promise<FileHunks[]> {
    return this.changed(base, head).map(({ path, from, to }) => ({
      path,
      oldPath: path,
      hunks: lineHunks(from ?? '', to ?? ''),
    }));
  }

  async readFile(repo: string, sha: string, path: string): Promise<Buffer | null> {
    const text = this.get(sha, repo).files.get(path);
    return text === undefined ? null : Buffer.from(text);
  }

  async blobSizes(
    repo: string,
    sha: string,
    asked: readonly { path: string }[],
  ): Promise<Map<string, number | null>> {
    const files = this.get(sha, repo).files;
    return new Map(
      asked.map(({ path }) => {
        const text = files.get(path);
        return [path, text === undefined ? null : Buffer.byteLength(text)];
      }),
    );
  }

  async addWorktree(repo: string, dir: string, sha: string): Promise<void> {
    if (this.worktrees.has(dir)) throw new GitError('git', ['worktree', 'add', dir], 128, 'already exists');
    const files = new Map(this.get(sha, repo).files);
    mkdirSync(dir, { recursive: true });
    this.worktrees.set(dir, { head: sha, files });
  }

  async removeWorktree(_repo: string, dir: string): Promise<void> {
    const had = this.worktrees.delete(dir);
    rmSync(dir, { recursive: true, force: true });
    if (!had) throw new GitError('git', ['worktree', 'remove', dir], 128, 'not a working tree');
  }

  async exportTree(_repo: string, sha: string, dir: string): Promise<void> {
    for (const [path, text] of this.get(sha).files) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
  }

  async bindWorktree(_repo: string, dir: string): Promise<boolean> {
    return this.worktrees.has(dir);
  }

  async cleanWorktree(dir: string): Promise<void> {
    const wt = this.wt(dir);
    const tracked = this.get(wt.head).files;
    for (const p of [...wt.files.keys()]) if (!tracked.has(p)) wt.files.delete(p);
  }

  async resetWorktree(dir: string, sha: string): Promise<void> {
    const wt = this.wt(dir);
    wt.head = sha;
    wt.files = new Map(this.get(sha).files);
  }

  async status(dir: string): Promise<{ path: string; code: string }[]> {
    // The user's own tree is never touched in the simulation.
    if (dir === this.repoRoot) return [];
    const wt = this.wt(dir);
    return this.changedMaps(this.get(wt.head).files, wt.files).map(({ path, from, to }) => ({
      path,
      code: from === undefined ? '??' : to === undefined ? ' D' : ' M',
    }));
  }

  async treeChanges(_repo: string, from: string, to: string) {
    // The simulation's trees hold plain files only.
    return this.changed(from, to).map(({ path, from: a, to: b }) => ({
      path,
      oldMode: a === undefined ? '000000' : '100644',
      newMode: b === undefined ? '000000' : '100644',
      oid: '',
      status: a === undefined ? 'A' : b === undefined ? 'D' : 'M',
    }));
  }

  async commitAll(dir: string, parent: string, _message: string): Promise<string | null> {
    const wt = this.wt(dir);
    if (wt.head !== parent) throw new WorktreeMovedError(dir, parent, wt.head);
    if (this.changedMaps(this.get(parent).files, wt.files).length === 0) return null;
    wt.head = this.commit(parent, wt.files);
    return wt.head;
  }

  async updateRef(_repo: string, ref: string, sha: string, expectOld?: string): Promise<void> {
    const now = this.refs.get(ref) ?? null;
    if (expectOld !== undefined && now !== expectOld) throw new RefMovedError(ref, expectOld, now);
    this.get(sha);
    this.refs.set(ref, sha);
  }

  async fastForward(_repo: string, ref: string, from: string, to: string) {
    await this.updateRef(this.repoRoot, ref, to, from);
    return { checkout: null };
  }

  /** The simulated world has no remote: the service that fetches is tested against real git. */
  async fetchRefs(): Promise<void> {
    throw new Error('SimGit has no remote to fetch from');
  }

  private lookup(ref: string): string | undefined {
    return (
      this.refs.get(ref) ?? this.refs.get(`refs/heads/${ref}`) ?? (this.commits.has(ref) ? ref : undefined)
    );
  }

  private fullName(rev: string): string | null {
    if (this.refs.has(rev) && rev.startsWith('refs/')) return rev;
    return this.refs.has(`refs/heads/${rev}`) ? `refs/heads/${rev}` : null;
  }

  private get(sha: string, repo = this.repoRoot): Commit {
    const c = this.commits.get(sha);
    if (!c) throw new UnknownRefError(sha, repo);
    return c;
  }

  private wt(dir: string): SimWorktree {
    const wt = this.worktrees.get(dir);
    if (!wt) throw new GitError('git', ['-C', dir, 'status'], 128, `not a git repository: ${dir}`);
    return wt;
  }

  private mergeBaseOf(a: string, b: string): string | null {
    const seen = new Set<string>();
    for (let c: string | null = a; c; c = this.get(c).parent) seen.add(c);
    for (let c: string | null = b; c; c = this.get(c).parent) if (seen.has(c)) return c;
    return null;
  }

  private diffOf(base: string, head: string): string {
    return this.changed(base, head)
      .map(({ path, from, to }) => fileDiffText(path, from ?? null, to ?? null))
      .join('');
  }

  private changed(base: string, head: string) {
    return this.changedMaps(this.get(base).files, this.get(head).files);
  }

  private changedMaps(a: Files, b: Files): { path: string; from?: string; to?: string }[] {
    const paths = [...new Set([...a.keys(), ...b.keys()])].sort();
    return paths.flatMap((path) => {
      const from = a.get(path);
      const to = b.get(path);
      return from === to
        ? []
        : [{ path, ...(from === undefined ? {} : { from }), ...(to === undefined ? {} : { to }) }];
    });
  }
}
