// The stat facts that say a file is still the one read (or written) before: its size, both times
// and its inode. One rule for the scan's index entries, the stored answer's inputs and history's
// remembered end (history.ts also compares the device).

/** Stat facts a file is keyed by. */
export interface FileKey {
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
}

/** True when the stat key matches the entry's. */
export function sameKey(e: FileKey, st: FileKey): boolean {
  return e.size === st.size && e.mtimeMs === st.mtimeMs && e.ctimeMs === st.ctimeMs && e.ino === st.ino;
}

/**
 * A log's end as this process left it after its last append (history, the events log): the file's
 * device and stat key right after the line, and that line's seq. While a stat still shows them, the
 * file ends with that line, whole; any other writer's line, a rewrite or a replacement moves them.
 */
export interface AppendedEnd extends FileKey {
  dev: number;
  seq: number;
}

/** True when `st` (a stat of the log as it is now) still shows the end `k` this process left. */
export function sameEnd(k: AppendedEnd, st: FileKey & { dev: number }): boolean {
  return sameKey(k, st) && k.dev === st.dev;
}
