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
