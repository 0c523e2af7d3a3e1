/**
 * A lane's lock: an exclusive SQLite transaction held open on a small file.
 * SQLite takes it with POSIX advisory locks, which the kernel drops when the
 * holding process dies (even by kill -9), and it tracks locks per file across
 * connections of one process, so two runs in one worker conflict as two
 * processes do. No lease to expire, no pid to guess about.
 */
import Database from 'better-sqlite3';

export interface LaneLock {
  release(): void;
}

/** Takes the lock at `path` without waiting; null when another run holds it. */
export function tryLaneLock(path: string): LaneLock | null {
  const db = new Database(path, { timeout: 0 });
  try {
    db.exec('BEGIN EXCLUSIVE');
  } catch (err) {
    db.close();
    if ((err as { code?: string }).code === 'SQLITE_BUSY') return null;
    throw err;
  }
  let held = true;
  return {
    release() {
      if (!held) return;
      held = false;
      // Closing ends the transaction, and with it the lock.
      db.close();
    },
  };
}
