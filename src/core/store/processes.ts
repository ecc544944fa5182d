/** True when `pid` names a live process on this host (EPERM means alive but not ours). */
export function pidAlive(pid: number): boolean {
  // 0 and negative pids address process groups: never a lock or lease holder.
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
