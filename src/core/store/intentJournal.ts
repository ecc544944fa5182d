import * as fs from 'node:fs';
import * as path from 'node:path';
import type { HistoryEntry } from '../types';
import type { Logger } from '../ports';
import { writeFileAtomic, sweepStaleTemps } from './atomicWrite';
import { lockPathFor } from './fileLock';
import { pastRacyWindow, sameStatNs } from './fileKey';
import { holderAlive, ownHost, ownStartTime, pidAlive, randomHex } from './processes';
import { readRegularFileSync } from './safeRead';
import { assertWritable, readInternalIfExists, safeMkdir, safeWritePath } from './safePath';
import { sha256 } from '../model/hash';

/**
 * The intent journal (`.waymark/journal/`): written (durably) before a change renames a file,
 * removed once its history lines and events are out. A writer killed in between leaves its
 * intent behind; the next writer of the same file (under that file's lock) finds it, sees from
 * the files' content hashes which renames happened, and appends what is missing, so history
 * and events are never behind the files.
 */

/** One file a change writes, and the SHA-256 of its bytes once written. */
export interface IntentWrite {
  file: string;
  sha256: string;
}

/** A history line to append once its evidence file holds the new bytes. */
export interface IntentEntry {
  entry: Omit<HistoryEntry, 'seq'>;
  /** Index into `writes`: the write whose presence proves the change happened. */
  evidence: number;
}

export interface Intent {
  id: string;
  pid: number;
  start?: string;
  host: string;
  time: string;
  root: string;
  historyDir?: string;
  writes: IntentWrite[];
  entries: IntentEntry[];
}

function journalDir(root: string): string {
  return path.join(root, '.waymark', 'journal');
}

/** Prefix of the intents about `file` (the name of its lock, so one listing finds them). */
function prefixFor(file: string): string {
  return path.basename(lockPathFor(file), '.lock');
}

/**
 * The journal folder as a check judged it: its real path, and its identity (device, inode) taken
 * before the real-path check (undefined: it was missing). An intent created in it is proved to be
 * there by the folder's identity after the open (txJournal.ts writeTxIntentOpen).
 */
export interface JudgedDir {
  dir: string;
  id: fs.Stats | undefined;
}

/** Refuses (exit 2) before a change when the journal could not be written; returns the folder as judged. */
export function assertJournalWritable(root: string): JudgedDir {
  const id = fs.statSync(journalDir(root), { throwIfNoEntry: false });
  const dir = safeWritePath(root, journalDir(root));
  // No link on the way (its real path is its name): that stat is the folder judged, not taken again.
  assertWritable(path.join(dir, 'x.json'), 'intent journal', { newName: true, seen: id && dir === journalDir(root) ? id : undefined });
  return { dir, id };
}

/** Records an intent about `file` durably; returns its path (pass it to completeIntent). */
export function writeIntent(root: string, file: string, intent: Omit<Intent, 'id' | 'pid' | 'start' | 'host' | 'time' | 'root'>): { path: string; intent: Intent } {
  const dir = safeMkdir(root, journalDir(root));
  const id = randomHex(8);
  const full: Intent = { id, pid: process.pid, start: ownStartTime(), host: ownHost(), time: new Date().toISOString(), root, ...intent };
  const p = path.join(dir, `${prefixFor(file)}.${process.pid}.${id}.json`);
  writeFileAtomic(p, JSON.stringify(full) + '\n', { root, what: 'intent journal' });
  markOwnIntent(p);
  return { path: p, intent: full };
}

/**
 * The intents this process wrote and has not removed: a reader of the journal passes over them
 * without reading them (a live writer's intent is its own business, and this process is alive).
 * A long-lived face leaves an intent until its deferred observers ran, so every write would
 * otherwise read and parse the ones still waiting.
 */
const ownIntents = new Map<string, Set<string>>();

/** Marks `p` as written by this process (see ownIntents); completeIntent unmarks it. */
export function markOwnIntent(p: string): void {
  // Kept by folder and name: a listing is passed over by name, with no path made per entry. By
  // folder, not by name alone: a name of this process's in one journal may, in another workspace's
  // journal, be a dead process's of the same pid (which must be found there).
  const dir = path.dirname(p);
  let names = ownIntents.get(dir);
  if (!names) ownIntents.set(dir, (names = new Set()));
  names.add(path.basename(p));
}

/** This process no longer holds `p` as its own (a journal slot let go). */
export function unmarkOwnIntent(p: string): void {
  const dir = path.dirname(p);
  const names = ownIntents.get(dir);
  if (!names) return;
  names.delete(path.basename(p));
  if (!names.size) ownIntents.delete(dir);
}

/** Removes a completed intent. */
export function completeIntent(p: string): void {
  unmarkOwnIntent(p);
  try {
    fs.unlinkSync(p);
  } catch {
    // already completed by a recovering writer
  }
}

/**
 * Removes a completed intent on the thread pool (a long-lived face, once a write's deferred
 * observers ran): the main thread does not wait for the removal, which on a busy ext4 waits for
 * the journal commit running at the time. The intent stays this process's own until it is gone
 * (listings pass over it); a process killed first leaves it whole, every file and line of it
 * already out: the next writer finds that and removes it.
 */
export function completeIntentAsync(p: string): Promise<void> {
  return new Promise((resolve) =>
    fs.unlink(p, () => {
      // An error: already completed by a recovering writer.
      unmarkOwnIntent(p);
      resolve();
    }),
  );
}

/**
 * Intents about `file` left by writers that are gone (dead on this host). A live writer's
 * intent is its own business: it completes it after its observers ran. Unreadable intents are
 * returned with `intent` undefined so the caller can move them aside.
 */
export function orphanedIntents(root: string, file: string, names?: readonly string[]): { path: string; intent?: Intent }[] {
  // A listing of transactions' files only (the common case: none, or journal slots) needs no
  // prefix: its real path and hash are not worked out.
  if (names && names.every((n) => n.startsWith('tx.'))) return [];
  return orphanedJournalFiles<Intent>(root, `${prefixFor(file)}.`, (x) => Array.isArray(x.writes) && Array.isArray(x.entries), names);
}

/**
 * The last listing of each journal folder, with the folder's stat taken right before it. A folder
 * whose entries change (a file made, removed or renamed in it, by any process) gets that moment as
 * its modification and change times; a folder still at the stat taken before the listing (same
 * device, inode, times and size) has the same names. Only a stat whose times were already in the
 * past (by more than the racy window, fileKey.ts: file times are taken from a clock that ticks every few milliseconds,
 * and a change in the same tick as the stat would leave them as they were) is kept to vouch for a
 * listing. A process writing again and again (the MCP server, the editor) lists its journal once
 * its slots are made (they are written in place: the folder does not change), then stats it: one
 * system call for the five of a listing (open, stat, two reads, close). What the names hold is
 * read as before: another process's slot, rewritten in place, is read at each write.
 */
const listings = new Map<string, { st: fs.BigIntStats; names: string[] }>();

/** The names in the journal folder (none when it does not exist): list once, pass to the readers below. */
export function listJournal(root: string): string[] {
  const dir = journalDir(root);
  let st: fs.BigIntStats | undefined;
  try {
    st = fs.statSync(dir, { bigint: true, throwIfNoEntry: false });
  } catch {
    st = undefined;
  }
  if (!st?.isDirectory()) {
    listings.delete(dir);
    return [];
  }
  const known = listings.get(dir);
  if (known && sameStatNs(st, known.st)) return [...known.names];
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    listings.delete(dir);
    return [];
  }
  if (pastRacyWindow(st, Date.now())) {
    if (listings.size >= 64 && !listings.has(dir)) listings.clear();
    listings.set(dir, { st, names: [...names] });
  } else listings.delete(dir);
  return names;
}

/**
 * The journal files named `<prefix>…json` whose writer is gone (a live writer on this host is
 * skipped), read and checked by `valid`; an unreadable or invalid one comes back without `intent`.
 * A writer killed while writing its intent leaves only a temp file: it is swept, nothing happened.
 */
export function orphanedJournalFiles<T extends { pid: number; start?: string; host: string }>(
  root: string,
  prefix: string,
  valid: (x: T) => boolean,
  listed?: readonly string[],
  slot?: (raw: string) => { state: 'live'; body: string } | { state: 'done' | 'torn' } | undefined,
): { path: string; intent?: T; torn?: boolean }[] {
  const dir = journalDir(root);
  // This process's own files (its pending intents, its journal slots) are passed over unread.
  const own = ownIntents.get(dir);
  const all = listed ?? listJournal(root);
  const names = own ? all.filter((n) => !own.has(n)) : [...all];
  // What is found here is swept, removed, moved aside or replayed: only in a journal folder inside
  // the workspace by its real path (a `.waymark/journal` link leading elsewhere is refused, naming
  // it). Checked when the listing has a file of this prefix (the common case has none).
  if (names.some((n) => n.startsWith(prefix) || n.startsWith(`.${prefix}`))) safeWritePath(root, dir);
  // Temp files are only looked at when the listing has one of this prefix (the common case has none).
  if (names.some((n) => n.startsWith(`.${prefix}`))) sweepStaleTemps(dir, (n) => n.startsWith(`.${prefix}`));
  const out: { path: string; intent?: T; torn?: boolean }[] = [];
  for (const n of names.sort()) {
    if (!n.startsWith(prefix) || !n.endsWith('.json')) continue;
    const p = path.join(dir, n);
    let intent: T | undefined;
    let raw: string | undefined;
    // A journal slot's record (txJournal.ts): live (its intent), done, or torn (overwritten half).
    let rec: ReturnType<NonNullable<typeof slot>>;
    try {
      raw = readInternalIfExists(p, 'intent journal');
      if (raw === undefined) continue; // completed meanwhile (the listing was made earlier)
      rec = slot?.(raw);
      intent = JSON.parse(rec ? (rec.state === 'live' ? rec.body : '') : raw) as T;
    } catch {
      intent = undefined;
    }
    const namedPid = Number(/\.(\d+)\.[0-9a-f]+\.json$/.exec(n)?.[1]);
    if (rec?.state === 'done') {
      // Its change is complete; the slot's process is gone (a live one's slots are its own): removed.
      if (Number.isInteger(namedPid) && namedPid > 0 && pidAlive(namedPid)) continue;
      try {
        fs.unlinkSync(p);
      } catch {
        // removed by another reader
      }
      continue;
    }
    if (intent && typeof intent === 'object' && valid(intent)) {
      if (intent.host === ownHost() && holderAlive(intent.pid, intent.start)) continue;
      out.push({ path: p, intent });
    } else {
      // A transaction writes its intent in place (engine/transaction.ts): one whose writer (the pid
      // in its name) is alive may be being written right now.
      const pid = namedPid;
      if (Number.isInteger(pid) && pid > 0 && pidAlive(pid)) continue;
      // Its writer died before the intent was whole (a whole one ends with its line break; a slot's
      // record has its length and hash): the change never reached its first rename, so nothing
      // happened and the file is removed, not kept.
      out.push({ path: p, torn: Number.isInteger(pid) && pid > 0 && raw !== undefined && (rec ? rec.state === 'torn' : !raw.endsWith('\n')) });
    }
  }
  return out;
}

/**
 * Sets aside a journal file a writer found and cannot use, by one rule whatever kind of change left
 * it (a one-file intent or a transaction's): one its dead writer left half written (`torn`, from
 * orphanedJournalFiles) never reached a rename, nothing happened, and it is removed; any other
 * (unreadable, or `why`: not this workspace's) is moved to `<name>.bad` for a person to look at.
 */
export function setAsideJournalFile(o: { path: string; torn?: boolean }, logger: Logger | undefined, why = 'is unreadable'): void {
  try {
    if (o.torn) {
      fs.unlinkSync(o.path);
      logger?.info(`[journal] ${o.path} was left half written by a writer that died before its change began; removed`);
    } else {
      fs.renameSync(o.path, `${o.path}.bad`);
      logger?.warn(`[journal] ${o.path} ${why}; moved aside to ${o.path}.bad`);
    }
  } catch {
    // set aside by another recovering writer
  }
}

/** SHA-256 of a file's bytes now, or undefined when it is missing or not a regular file. */
export function currentSha256(file: string): string | undefined {
  try {
    return sha256(readRegularFileSync(file));
  } catch {
    return undefined;
  }
}
