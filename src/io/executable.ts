/**
 * Where `spawn` would find an executable: a name with a slash is a path
 * (relative to the working directory); a bare name is searched along PATH.
 * Needed where revloop starts processes without child_process's own lookup:
 * agents and checks start through `/bin/sh` (process-group.ts), which would
 * turn a missing file into exit 127, and git through posix_spawn (spawn.ts),
 * which is given a path.
 */
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';

export type Found = { ok: true; path: string } | { ok: false; errno: 'ENOENT' | 'EACCES' };

function check(path: string): Found {
  try {
    if (!statSync(path).isFile()) return { ok: false, errno: 'EACCES' };
  } catch {
    return { ok: false, errno: 'ENOENT' };
  }
  try {
    accessSync(path, constants.X_OK);
    return { ok: true, path };
  } catch {
    return { ok: false, errno: 'EACCES' };
  }
}

export function findExecutable(file: string, cwd: string, pathVar: string | undefined): Found {
  if (file.includes('/')) return check(resolve(cwd, file));
  let denied = false;
  // Without PATH, execvp's default; an empty entry means the working directory.
  for (const dir of (pathVar ?? '/bin:/usr/bin').split(delimiter)) {
    const r = check(join(dir === '' ? cwd : resolve(cwd, dir), file));
    if (r.ok) return r;
    if (r.errno === 'EACCES') denied = true;
  }
  return { ok: false, errno: denied ? 'EACCES' : 'ENOENT' };
}
