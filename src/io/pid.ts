/** Whether a process of this id exists on this host (one we may not signal still exists). */
export function pidAlive(pid: number): boolean {
  // 0 and negative ids name process groups to kill(2), never one process.
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
