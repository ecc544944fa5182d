// The stat facts that say a file is still the one read (or written) before: its size, both times
// and its inode. One rule for the scan's index entries, the stored answer's inputs and history's
// remembered end (history.ts also compares the device); and the racy window, with the folders a
// stat vouches for while they are still (the journal's listing, a repository's `.git`).
import type * as fs from 'node:fs';

/**
 * How long a file's times must lie in the past before its stat vouches for what was read of it:
 * file times come from a clock that ticks every few milliseconds, and a change in the tick of the
 * stat would leave them as they were ("racy", as git says).
 */
export const RACY_WINDOW_MS = 2000;

/** The same file or folder at the same stat: device, inode, both times, size, mode and links (a folder's entries made, removed or renamed move its times). */
export function sameStatNs(a: fs.BigIntStats | undefined, b: fs.BigIntStats | undefined): boolean {
  return !!a && !!b && a.dev === b.dev && a.ino === b.ino && a.mtimeNs === b.mtimeNs && a.ctimeNs === b.ctimeNs && a.size === b.size && a.mode === b.mode && a.nlink === b.nlink;
}

/** Both of `st`'s times lie more than the racy window before `nowMs`: the stat may vouch for what is read after it. */
export function pastRacyWindow(st: fs.BigIntStats | undefined, nowMs: number): boolean {
  const before = BigInt(nowMs - RACY_WINDOW_MS) * 1_000_000n;
  return !!st && st.mtimeNs < before && st.ctimeNs < before;
}

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
