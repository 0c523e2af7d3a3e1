/**
 * The one way revloop writes a file (invariant 5): a temp file in the same
 * directory, fsync, rename into place, fsync of the directory; the temp file
 * is removed on error. A reader never sees a partial file, and no file is a
 * completion signal.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { type FileHandle, mkdir, open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

export interface AtomicWriteOptions {
  /** File mode, e.g. 0o600 for private keys. */
  mode?: number;
}

export function writeFileAtomic(
  path: string,
  data: string | Uint8Array,
  opts: AtomicWriteOptions = {},
): void {
  const dir = dirname(path);
  mkdirSync(dir, { recursive: true });
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
    throw err;
  }
  fsyncDir(dir);
}

/**
 * writeFileAtomic without blocking the event loop, for writes that overlap
 * other work (a prompt saved while its call runs). Same steps, same guarantees.
 */
export async function writeFileAtomicAsync(
  path: string,
  data: string | Uint8Array,
  opts: AtomicWriteOptions = {},
): Promise<void> {
  const dir = dirname(path);
  await mkdir(dir, { recursive: true });
  const tmp = tempPathFor(path);
  let fh: FileHandle | undefined;
  try {
    fh = await open(tmp, 'wx', opts.mode ?? 0o644);
    await fh.writeFile(data);
    await fh.sync();
    await fh.close();
    fh = undefined;
    await rename(tmp, path);
  } catch (err) {
    await fh?.close();
    await rm(tmp, { force: true });
    throw err;
  }
  const d = await open(dir, 'r');
  try {
    await d.sync();
  } finally {
    await d.close();
  }
}

const tempPathFor = (path: string): string =>
  join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);

/** Makes a rename or create in `dir` durable. */
export function fsyncDir(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
