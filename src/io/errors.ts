/**
 * Errors of the file layer. A path the user named that cannot hold a file
 * (a directory, a path under a regular file, a place nobody may create) is
 * `bad_path` (exit 2); a file that could not be written for want of room or
 * a failing device is `write_failed` (exit 10). Both name the path.
 */
import { RevloopError } from '../core/errors.js';

/** errno codes that say the path itself is wrong, not the disk. */
const BAD_PATH = new Set([
  'EISDIR',
  'ENOTDIR',
  'EEXIST',
  'ENOENT',
  'EACCES',
  'EPERM',
  'EROFS',
  'ENAMETOOLONG',
  'ELOOP',
]);

const WHY: Record<string, string> = {
  EISDIR: 'it is a directory',
  ENOTDIR: 'a parent is not a directory',
  ENOENT: 'the directory cannot be created',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'read-only file system',
  ENAMETOOLONG: 'name too long',
  ELOOP: 'too many symbolic links',
  ENOSPC: 'no space left on device',
  EDQUOT: 'disk quota exceeded',
  EIO: 'input/output error',
  EFBIG: 'file too large',
};

/** Plain words for an errno code. */
export const describeErrno = (errno: string): string => WHY[errno] ?? `error ${errno}`;

export class FileWriteError extends RevloopError {
  constructor(
    readonly path: string,
    readonly errno: string,
    /** What was wrong, when more precise than the errno ("/etc/passwd is not a directory"). */
    why?: string,
  ) {
    super(
      BAD_PATH.has(errno) ? 'bad_path' : 'write_failed',
      `cannot write ${path}: ${why ?? describeErrno(errno)} (${errno})`,
      { path, errno },
    );
  }

  /** The error of a failed fs call on behalf of writing `path`; anything without an errno is rethrown as is. */
  static from(err: unknown, path: string, why?: string): FileWriteError {
    if (err instanceof FileWriteError) return err;
    const code = (err as NodeJS.ErrnoException)?.code;
    if (typeof code !== 'string') throw err;
    return new FileWriteError(path, code, why);
  }
}
