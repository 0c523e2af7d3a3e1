/**
 * The one way revloop writes a file (invariant 5): a temp file in the same
 * directory, fsync, rename into place, fsync of the directory; the temp file
 * is removed on error. A reader never sees a partial file, and no file is a
 * completion signal. Every failure is a FileWriteError naming the path.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { type FileHandle, open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { describeErrno, FileWriteError } from './errors.js';

export interface AtomicWriteOptions {
  /** File mode, e.g. 0o600 for private keys. */
  mode?: number;
}

export interface AsyncAtomicWriteOptions extends AtomicWriteOptions {
  /**
   * Makes the rename durable; by default an fsync of the directory of its own.
   * A writer of many files into one directory passes one that several renames
   * share (prompt-files.ts), run only after its own rename.
   */
  syncDir?: (dir: string) => Promise<void>;
  /** The caller has already checked the directory (prepareTarget) for this path. */
  prepared?: boolean;
}

export function writeFileAtomic(
  path: string,
  data: string | Uint8Array,
  opts: AtomicWriteOptions = {},
): void {
  const dir = prepareTarget(path);
  const tmp = tempPathFor(path);
  let fd: number | undefined;
  try {
    fd = openSync(tmp, 'wx', opts.mode ?? 0o644);
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    let off = 0;
    while (off < bytes.length) off += writeSync(fd, bytes, off, bytes.length - off);
    fsyncSync(fd);
    closeSync(fd);
    fd = undefined;
    renameSync(tmp, path);
  } catch (err) {
    if (fd !== undefined) closeSync(fd);
    rmSync(tmp, { force: true });
    throw FileWriteError.from(err, path);
  }
  try {
    fsyncDir(dir);
  } catch (err) {
    throw FileWriteError.from(err, path);
  }
}

/**
 * writeFileAtomic without blocking the event loop, for writes that overlap
 * other work (a prompt saved while its call runs). Same steps, same guarantees.
 */
export async function writeFileAtomicAsync(
  path: string,
  data: string | Uint8Array,
  opts: AsyncAtomicWriteOptions = {},
): Promise<void> {
  const dir = opts.prepared ? dirname(path) : prepareTarget(path);
  const tmp = tempPathFor(path);
  let fh: FileHandle | undefined;
  try {
    fh = await open(tmp, 'wx', opts.mode ?? 0o644);
    await fh.writeFile(data);
    await fh.sync();
    await fh.close();
    fh = undefined;
    await rename(tmp, path);
    await (opts.syncDir ?? fsyncDirAsync)(dir);
  } catch (err) {
    await fh?.close();
    await rm(tmp, { force: true });
    throw FileWriteError.from(err, path);
  }
}

/**
 * Checks that `path` can name a file and creates its missing directories;
 * returns the directory. The checks are a stat or two (the directory exists
 * in the common case), so the async writer makes them too.
 */
export function prepareTarget(path: string): string {
  const dir = dirname(path);
  ensureDirFor(path, dir);
  // A directory there would make the rename fail only after the temp file was written.
  if (isDirectory(path)) throw new FileWriteError(path, 'EISDIR');
  return dir;
}

/**
 * Fails early, creating nothing, when `path` cannot name a file: it is a
 * directory, or a parent on the way is a regular file. For flags like `--out`
 * checked before a long run, not after it.
 */
export function checkFileTarget(path: string): void {
  if (isDirectory(path)) throw new FileWriteError(path, 'EISDIR');
  nearestExistingDir(path, dirname(path));
}

/**
 * `mkdir -p` of the file's directory that names what is wrong. Node's own
 * recursive mkdir spins forever where the kernel refuses with ENOENT (under
 * /proc), and reports a regular file on the way as EEXIST.
 */
function ensureDirFor(path: string, dir: string): void {
  const missing = nearestExistingDir(path, dir);
  for (const d of missing.reverse()) {
    try {
      mkdirSync(d);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EEXIST' && isDirectory(d)) continue; // another process made it meanwhile
      throw FileWriteError.from(err, path, `cannot create directory ${d}: ${describeErrno(code ?? '')}`);
    }
  }
}

/** The directories on the way to `dir` that do not exist yet, deepest first. */
function nearestExistingDir(path: string, dir: string): string[] {
  const missing: string[] = [];
  for (let d = dir; ; d = dirname(d)) {
    let isDir: boolean;
    try {
      isDir = statSync(d).isDirectory();
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw FileWriteError.from(err, path);
      missing.push(d);
      if (dirname(d) === d) return missing;
      continue;
    }
    if (!isDir) throw new FileWriteError(path, 'ENOTDIR', `${d} is not a directory`);
    return missing;
  }
}

function isDirectory(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

const tempPathFor = (path: string): string =>
  join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);

/** tempPathFor's names: the target's name, the writer's pid, six random bytes. */
const TEMP_NAME = /^\..+\.(\d+)\.[0-9a-f]{12}\.tmp$/;

/**
 * The pid of the process that wrote the temp file `name` (a name tempPathFor
 * gives), or null for any other name. A writer killed between its open and
 * its rename (kill -9 mid-save) leaves its temp file: no one else ever renames
 * or removes it, so `revloop gc` removes those whose writer is gone.
 */
export function tempFileWriter(name: string): number | null {
  const m = TEMP_NAME.exec(name);
  return m ? Number(m[1]) : null;
}

/** Makes a rename or create in `dir` durable, without blocking the event loop. */
export async function fsyncDirAsync(dir: string): Promise<void> {
  const d = await open(dir, 'r');
  try {
    await d.sync();
  } finally {
    await d.close();
  }
}

/** Makes a rename or create in `dir` durable. */
export function fsyncDir(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
