import * as path from 'node:path';
import type { HistoryEntry } from '../types';
import * as fs from 'node:fs';
import { ioError } from './atomicWrite';
import { WaymarkError } from '../errors';
import { completeIntent, completeIntentAsync, markOwnIntent, orphanedJournalFiles, type JudgedDir } from './intentJournal';
import { ownHost, ownStartTime, randomHex } from './processes';
import { safeMkdir } from './safePath';

/**
 * The intent journal of multi-file transactions (`.waymark/journal/tx.<pid>.<id>.json`): written
 * durably before the first rename, naming every file of the change with its bytes before and
 * after, and the history line each file gets. Removed once the history lines and events are out.
 * A writer killed in between leaves it behind; the next writer of any of its files (holding the
 * locks of all of them) completes it: the renames that did not happen are made, the history
 * lines that are missing appended. Before the first rename nothing happened: it is dropped.
 */

/** One file of a transaction. */
export interface TxIntentWrite {
  /** The file as the change names it (history is keyed by it). */
  file: string;
  /** Its real path: what is locked, read and renamed over. */
  target: string;
  /** SHA-256 of the bytes before (null: the file did not exist) and after. */
  before: string | null;
  after: string;
  /** The new bytes, so a killed change can be completed. */
  text: string;
  /** The file is removed (`after` is 'removed', `text` ''). */
  remove?: boolean;
}

export interface TxIntent {
  kind: 'tx';
  id: string;
  pid: number;
  start?: string;
  host: string;
  time: string;
  root: string;
  operation: string;
  historyDir?: string;
  writes: TxIntentWrite[];
  /**
   * The history line of each write (same index; null: that write is not recorded); its seq is
   * assigned when appended. Its `file` may be another file of the change (a gate verdict is
   * recorded in its workflow's history).
   */
  entries: (Omit<HistoryEntry, 'seq'> | null)[];
}

function journalDir(root: string): string {
  return path.join(root, '.waymark', 'journal');
}

/**
 * Writes a transaction's intent in place in the journal folder (a new file, created exclusively),
 * its descriptor left open: the engine fsyncs it and the folder together with the temp files of
 * the change, before the first rename of a file of the change. Until then a reader may find it
 * half written: orphanedJournalFiles passes over an unreadable intent whose writer (the pid in its
 * name) is alive; one whose writer died before it was whole is removed (nothing happened:
 * setAsideJournalFile).
 * Its path is what completeTxIntent removes; `fd` is closed by the caller.
 */
export function writeTxIntentOpen(root: string, intent: Omit<TxIntent, 'kind' | 'id' | 'pid' | 'start' | 'host' | 'time' | 'root'>, judged?: JudgedDir): { path: string; intent: TxIntent; fd: number } {
  // `judged`: the journal folder as the caller's check found it (assertJournalWritable, nothing
  // awaited since), not resolved again; the intent is proved to be in that very folder after its
  // open (below). A folder missing then is made and judged here.
  const seen = judged?.id?.isDirectory() ? judged : undefined;
  const dir = seen ? seen.dir : safeMkdir(root, journalDir(root));
  const id = randomHex(8);
  const full: TxIntent = { kind: 'tx', id, pid: process.pid, start: ownStartTime(), host: ownHost(), time: new Date().toISOString(), root, ...intent };
  const p = path.join(dir, `tx.${process.pid}.${id}.json`);
  let fd: number | undefined;
  try {
    fd = fs.openSync(p, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | (fs.constants.O_NOFOLLOW ?? 0), 0o644);
    if (seen) {
      // The folder the intent was created in is the one judged (its identity was taken before the
      // check): a folder on the way swapped for a link since is refused, the file it made removed.
      const now = fs.statSync(journalDir(root), { throwIfNoEntry: false });
      if (!now || now.dev !== seen.id!.dev || now.ino !== seen.id!.ino) {
        fs.closeSync(fd);
        fd = undefined;
        completeIntent(p);
        throw new WaymarkError('conflict', `${journalDir(root)} was replaced while Waymark was writing its intent; nothing was changed. Look for links under .waymark/ (remove any that lead outside the workspace), then retry.`, journalDir(root), { replaced: true });
      }
    }
    const buf = Buffer.from(JSON.stringify(full) + '\n', 'utf8');
    let off = 0;
    markOwnIntent(p);
    while (off < buf.length) off += fs.writeSync(fd, buf, off, buf.length - off);
    return { path: p, intent: full, fd };
  } catch (e) {
    if (fd !== undefined) fs.closeSync(fd);
    completeIntent(p);
    if (WaymarkError.is(e)) throw e;
    throw ioError(e, p, 'write the intent journal');
  }
}

/** Removes a completed transaction's intent (the same as a one-file intent's). */
export const completeTxIntent: (p: string) => void = completeIntent;

/** completeTxIntent on the thread pool (store/intentJournal.ts `completeIntentAsync`). */
export const completeTxIntentAsync: (p: string) => Promise<void> = completeIntentAsync;

/**
 * Transactions left by writers that are gone (a live writer's intent is its own business).
 * Unreadable intents come back with `intent` undefined, to be set aside (setAsideJournalFile).
 */
export function orphanedTxIntents(root: string, names?: readonly string[]): { path: string; intent?: TxIntent }[] {
  return orphanedJournalFiles<TxIntent>(root, 'tx.', (x) => x.kind === 'tx' && Array.isArray(x.writes) && Array.isArray(x.entries) && x.writes.every((w) => w && typeof w.target === 'string' && typeof w.text === 'string'), names);
}
