import * as path from 'node:path';
import type { HistoryEntry } from '../types';
import * as fs from 'node:fs';
import { ioError } from './atomicWrite';
import { WaymarkError } from '../errors';
import { completeIntent, completeIntentAsync, markOwnIntent, orphanedJournalFiles, unmarkOwnIntent, type JudgedDir } from './intentJournal';
import { ownHost, ownStartTime, randomHex } from './processes';
import { safeMkdir } from './safePath';
import { sha256 } from '../model/hash';

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
  /**
   * The file is added to in place: `text` is only the bytes added, at this byte offset (the
   * length of its bytes before); `before` and `after` are still hashes of the whole file.
   */
  append?: number;
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
 * A record in a journal slot (below): a header line `WAYMARK-TX 1 live <body bytes> <SHA-256 of the
 * body>` and the body, the intent as one JSON line. Marked done in place (`live` → `done`, the same
 * four bytes); a record overwritten half (its writer died before its flush) fails its hash.
 */
const SLOT_MAGIC = 'WAYMARK-TX 1 ';
const SLOT_HEADER = SLOT_MAGIC.length + 'live '.length + 11 + 64 + 1;

function slotRecord(body: string): Buffer {
  const b = Buffer.from(body, 'utf8');
  return Buffer.concat([Buffer.from(`${SLOT_MAGIC}live ${String(b.length).padStart(10, '0')} ${sha256(b)}\n`, 'latin1'), b]);
}

/**
 * What a journal file holds when it is a slot's (undefined: it is not, an intent file of its own):
 * `live` with its intent's text, `done`, or `torn` (a record whose writer died before it was whole).
 */
export function readSlotRecord(raw: string): { state: 'live'; body: string } | { state: 'done' | 'torn' } | undefined {
  if (!raw.startsWith(SLOT_MAGIC)) return undefined;
  const m = /^(live|done) (\d{10}) ([0-9a-f]{64})\n$/.exec(raw.slice(SLOT_MAGIC.length, SLOT_HEADER));
  if (!m) return { state: 'torn' };
  if (m[1] === 'done') return { state: 'done' };
  const body = Buffer.from(raw.slice(SLOT_HEADER), 'utf8').subarray(0, Number(m[2]));
  if (body.length !== Number(m[2]) || sha256(body) !== m[3]) return { state: 'torn' };
  return { state: 'live', body: body.toString('utf8') };
}

/**
 * A journal slot: a file of this process (`tx.<pid>.<n>.json`) created once, its descriptor kept
 * open, each intent written over the last one in place and marked done in place: a write that
 * records history lines creates, removes and names no file in the journal folder (each of those
 * waits for ext4's running journal commit), and its intent needs its own data flushed only (the
 * name was made durable when the slot was created). A done record left on disk is harmless: its
 * lines are out, and a line of a change proves every rename of it happened, so recovery never
 * redoes it (engine/transaction.ts recoverTx). Busy while its change is not done.
 */
interface Slot {
  path: string;
  fd: number;
  /** The journal folder's real path and identity when the slot was made. */
  dir: string;
  dirDev: number;
  dirIno: number;
  dev: number;
  ino: number;
  busy: boolean;
}

const slots: Slot[] = [];
const MAX_SLOTS = 16;
let slotCount = 0;
let exitHooked = false;

function slotAt(p: string): Slot | undefined {
  return slots.find((s) => s.path === p);
}

/** Lets go of a slot whose file is no longer the one it made (closed, never removed: not ours). */
function dropSlot(s: Slot): void {
  slots.splice(slots.indexOf(s), 1);
  unmarkOwnIntent(s.path);
  try {
    fs.closeSync(s.fd);
  } catch {
    // already closed
  }
}

/** A free slot of this process in the journal folder `dir` (as judged: `id`), still in place; undefined: none. */
function freeSlot(dir: string, id: fs.Stats): Slot | undefined {
  for (const s of [...slots]) {
    if (s.busy || s.dir !== dir || s.dirDev !== id.dev || s.dirIno !== id.ino) continue;
    const now = fs.lstatSync(s.path, { throwIfNoEntry: false });
    if (now && now.dev === s.dev && now.ino === s.ino) return s;
    dropSlot(s);
  }
  return undefined;
}

/** At a normal exit the done slots are removed (a killed process's are removed by the next writer that finds them). */
function hookExit(): void {
  if (exitHooked) return;
  exitHooked = true;
  process.on('exit', () => {
    for (const s of slots) {
      if (s.busy) continue;
      try {
        const now = fs.lstatSync(s.path, { throwIfNoEntry: false });
        if (now && now.dev === s.dev && now.ino === s.ino) fs.unlinkSync(s.path);
      } catch {
        // removed already
      }
    }
  });
}

/**
 * Writes a transaction's intent in the journal folder: with `reuse` (a change that records history
 * lines) over a free slot of this process (see Slot; `fresh` when the slot was just made), else in
 * a new file (created exclusively). The engine flushes it (and, when its name is new, the folder)
 * together with the temp files of the change, before the first rename of a file of the change.
 * Until then a reader may find it half written: orphanedJournalFiles passes over an unreadable
 * intent whose writer (the pid in its name) is alive; one whose writer died before it was whole is
 * removed (nothing happened: setAsideJournalFile).
 * Its path is what completeTxIntent completes; `fd` is closed by the caller unless `slot`.
 */
export function writeTxIntentOpen(root: string, intent: Omit<TxIntent, 'kind' | 'id' | 'pid' | 'start' | 'host' | 'time' | 'root'>, judged?: JudgedDir, options: { reuse?: boolean } = {}): { path: string; intent: TxIntent; fd: number; fresh: boolean; slot: boolean } {
  // `judged`: the journal folder as the caller's check found it (assertJournalWritable, nothing
  // awaited since), not resolved again; the intent is proved to be in that very folder after it
  // is written (below). A folder missing then is made and judged here.
  const seen = judged?.id?.isDirectory() ? judged : undefined;
  const dir = seen ? seen.dir : safeMkdir(root, journalDir(root));
  const id = randomHex(8);
  const full: TxIntent = { kind: 'tx', id, pid: process.pid, start: ownStartTime(), host: ownHost(), time: new Date().toISOString(), root, ...intent };
  const body = JSON.stringify(full) + '\n';
  let slot = options.reuse && seen ? freeSlot(dir, seen.id!) : undefined;
  // At most MAX_SLOTS slots a journal folder (each keeps a descriptor open): a change beyond them (a
  // burst of writes whose deferred observers have not run yet) writes an intent file of its own.
  const reuse = !!options.reuse && (slot !== undefined || slots.filter((s) => s.dir === dir).length < MAX_SLOTS);
  const fresh = !slot;
  let p = slot?.path ?? path.join(dir, `tx.${process.pid}.${reuse ? slotCount : id}.json`);
  let fd: number | undefined = slot?.fd;
  try {
    if (!slot) {
      const flags = (reuse ? fs.constants.O_RDWR : fs.constants.O_WRONLY) | fs.constants.O_CREAT | fs.constants.O_EXCL | (fs.constants.O_NOFOLLOW ?? 0);
      for (let tries = 0; ; tries++) {
        try {
          fd = fs.openSync(p, flags, 0o644);
          break;
        } catch (e) {
          // A slot name left by an earlier process with this pid: the next name (it is that process's, for recovery).
          if (!reuse || (e as NodeJS.ErrnoException).code !== 'EEXIST' || tries >= 64) throw e;
          p = path.join(dir, `tx.${process.pid}.${++slotCount}.json`);
        }
      }
      if (reuse) slotCount++;
    }
    markOwnIntent(p);
    const buf = reuse ? slotRecord(body) : Buffer.from(body, 'utf8');
    let off = 0;
    while (off < buf.length) off += fs.writeSync(fd!, buf, off, buf.length - off, reuse ? off : null);
    if (seen) {
      // The folder the intent was written in is the one judged (its identity was taken before the
      // check): a folder on the way swapped for a link since is refused, the intent let go.
      const now = fs.statSync(journalDir(root), { throwIfNoEntry: false });
      if (!now || now.dev !== seen.id!.dev || now.ino !== seen.id!.ino) {
        throw new WaymarkError('conflict', `${journalDir(root)} was replaced while Waymark was writing its intent; nothing was changed. Look for links under .waymark/ (remove any that lead outside the workspace), then retry.`, journalDir(root), { replaced: true });
      }
    }
    if (reuse && !slot) {
      const st = fs.fstatSync(fd!);
      const d = seen ? seen.id! : fs.statSync(dir);
      slot = { path: p, fd: fd!, dir, dirDev: d.dev, dirIno: d.ino, dev: st.dev, ino: st.ino, busy: true };
      slots.push(slot);
      hookExit();
    }
    if (slot) slot.busy = true;
    return { path: p, intent: full, fd: fd!, fresh, slot: !!slot };
  } catch (e) {
    // The record never counted (nothing was renamed). A slot used again is marked done by its
    // descriptor and let go (its name may lead elsewhere now: never removed by name); a new file is
    // removed, as before.
    if (slot && !fresh) {
      try {
        fs.writeSync(slot.fd, 'done', SLOT_MAGIC.length, 'latin1');
      } catch {
        // let go all the same: a live record of a live process is passed over
      }
      dropSlot(slot);
    } else {
      if (slot) dropSlot(slot);
      else if (fd !== undefined) fs.closeSync(fd);
      completeIntent(p);
    }
    if (WaymarkError.is(e)) throw e;
    throw ioError(e, p, 'write the intent journal');
  }
}

/**
 * Completes a transaction's intent: a slot's record is marked done in place (no flush: see Slot),
 * any other intent file is removed (the same as a one-file intent's).
 */
export function completeTxIntent(p: string): void {
  const s = slotAt(p);
  if (!s) return completeIntent(p);
  try {
    fs.writeSync(s.fd, 'done', SLOT_MAGIC.length, 'latin1');
    s.busy = false;
  } catch {
    dropSlot(s);
    completeIntent(p);
  }
}

/** completeTxIntent on the thread pool for an intent file of its own (store/intentJournal.ts `completeIntentAsync`); a slot is marked done at once. */
export function completeTxIntentAsync(p: string): Promise<void> {
  if (!slotAt(p)) return completeIntentAsync(p);
  completeTxIntent(p);
  return Promise.resolve();
}

/**
 * Transactions left by writers that are gone (a live writer's intent is its own business).
 * Unreadable intents come back with `intent` undefined, to be set aside (setAsideJournalFile).
 */
export function orphanedTxIntents(root: string, names?: readonly string[]): { path: string; intent?: TxIntent }[] {
  return orphanedJournalFiles<TxIntent>(root, 'tx.', (x) => x.kind === 'tx' && Array.isArray(x.writes) && Array.isArray(x.entries) && x.writes.every((w) => w && typeof w.target === 'string' && typeof w.text === 'string'), names, readSlotRecord);
}
