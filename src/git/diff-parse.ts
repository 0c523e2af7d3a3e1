/**
 * Parsers for git's diff output: the file headers of a patch and its
 * zero-context hunks, and the changed-file list derived from them. Pure
 * functions over text, so the odd cases (quoted names, pure renames, binary
 * files, type changes) are tested without a repository.
 */
import { unquote } from '../core/c-quote.js';
import type { ChangedFile, FileHunks, Hunk } from '../ports/git.js';

export { unquote };

/**
 * Unchanged lines the canonical diff shows around each change (its `-U`):
 * fewer after a hunk's last change means the file ended there.
 */
export const CONTEXT_LINES = 3;

/** How each file's section of a diff begins. */
export const FILE_HEADER = 'diff --git ';

/**
 * The files a parsed patch changes, as `git diff --name-status` lists them:
 * a type change (file to symlink), which a patch shows as the path's deletion
 * then its creation, is one modified file.
 */
export function changedFilesOf(patch: readonly PatchFile[]): ChangedFile[] {
  const files: ChangedFile[] = [];
  for (let i = 0; i < patch.length; i++) {
    const f = patch[i] as PatchFile;
    const next = patch[i + 1];
    if (f.deleted && next?.added && next.path === f.path) {
      files.push({ path: f.path, oldPath: f.path, status: 'modified' });
      i++;
      continue;
    }
    const status = f.added ? 'added' : f.deleted ? 'deleted' : f.path !== f.oldPath ? 'renamed' : 'modified';
    files.push({ path: f.path, oldPath: f.oldPath, status });
  }
  return files;
}

/** A path that is C-quoted only when it needs to be (`rename from` lines). */
export const plainPath = (raw: string): string => (raw.startsWith('"') ? unquote(raw).value : raw);

/** A path from a `---`/`+++` line; null for /dev/null. */
function sidePath(raw: string, prefix: string): string | null {
  // git appends a tab to unquoted names that contain a space (for GNU patch).
  const name = raw.startsWith('"') ? unquote(raw).value : raw.replace(/\t$/, '');
  if (name === '/dev/null') return null;
  return name.startsWith(prefix) ? name.slice(prefix.length) : name;
}

/**
 * The path of a `diff --git a/P b/P` header (given without `diff --git `)
 * whose two sides are equal (no rename): P may hold spaces, so it is half of
 * what is left after the two prefixes and the space between.
 */
export function headerPath(header: string): string {
  if (header.startsWith('"')) return sidePath(header, 'a/') ?? '';
  const [a] = headerNames(header);
  return a.length > 2 ? a.slice(2) : header.slice(2);
}

/**
 * The two names of a `diff --git` header (given without `diff --git `), as
 * written: without renames both name one path under `a/` and `b/`, quoted
 * alike, so they are of equal length.
 */
export function headerNames(header: string): [string, string] {
  const half = (header.length - 1) / 2;
  return Number.isInteger(half) ? [header.slice(0, half), header.slice(half + 1)] : [header, header];
}

interface Section {
  header: string;
  minus?: string | null;
  plus?: string | null;
  renameFrom?: string;
  renameTo?: string;
  binary: boolean;
  added: boolean;
  deleted: boolean;
  hunks: Hunk[];
}

/** A hunk header: old start and count, new start and count (a count of 1 is left out). */
export const HUNK = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;

/** One file of a parsed patch; `added`/`deleted` when absent on the old/new side. */
export interface PatchFile extends FileHunks {
  added: boolean;
  deleted: boolean;
}

function finish(s: Section): PatchFile {
  const fallback = headerPath(s.header);
  const oldPath = s.renameFrom ?? s.minus ?? s.plus ?? fallback;
  const path = s.renameTo ?? s.plus ?? s.minus ?? fallback;
  const out: PatchFile = { path, oldPath, hunks: s.hunks, added: s.added, deleted: s.deleted };
  if (s.binary) out.binary = true;
  return out;
}

/**
 * Parses a patch made with `--src-prefix=a/ --dst-prefix=b/` (any context,
 * without `--binary`) into per-file hunk ranges.
 */
export function parsePatch(text: string): PatchFile[] {
  const files: PatchFile[] = [];
  let cur: Section | null = null;
  for (const line of text.split('\n')) {
    if (line.startsWith('diff --git ')) {
      if (cur) files.push(finish(cur));
      cur = {
        header: line.slice('diff --git '.length),
        binary: false,
        added: false,
        deleted: false,
        hunks: [],
      };
      continue;
    }
    if (!cur) continue;
    const m = HUNK.exec(line);
    if (m) {
      cur.hunks.push({
        oldStart: Number(m[1]),
        oldCount: m[2] === undefined ? 1 : Number(m[2]),
        newStart: Number(m[3]),
        newCount: m[4] === undefined ? 1 : Number(m[4]),
      });
      continue;
    }
    // Header lines only come before the first hunk; after it a line like
    // "--- x" is a removed "-- x".
    if (cur.hunks.length > 0) continue;
    if (line.startsWith('--- ')) cur.minus = sidePath(line.slice(4), 'a/');
    else if (line.startsWith('+++ ')) cur.plus = sidePath(line.slice(4), 'b/');
    else if (line.startsWith('deleted file mode ')) cur.deleted = true;
    else if (line.startsWith('new file mode ')) cur.added = true;
    else if (line.startsWith('rename from ')) cur.renameFrom = plainPath(line.slice(12));
    else if (line.startsWith('rename to ')) cur.renameTo = plainPath(line.slice(10));
    else if (line.startsWith('Binary files ') || line === 'GIT binary patch') cur.binary = true;
  }
  if (cur) files.push(finish(cur));
  return files;
}
