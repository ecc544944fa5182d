import * as fs from 'node:fs';
import * as path from 'node:path';
import { WaymarkError } from '../errors';
import { holderAlive, ownHost, ownStartTime, pidAlive, randomHex } from '../store/processes';
import { openInternalSync } from '../store/safePath';


const sleepCell = new Int32Array(new SharedArrayBuffer(4));
export function sleepSync(ms: number): void {
  Atomics.wait(sleepCell, 0, 0, ms);
}

interface MutexRecord {
  pid: number;
  host: string;
  /** Process start time, so a reused pid is not taken for the holder. */
  start?: string;
  time: number;
}

export interface MutexOptions {
  /** Give up after this long (ms). Default 5000. */
  timeoutMs?: number;
  /** A lock from another host older than this is stale (ms). Default 30000. On this host only a dead holder's lock is. */
  staleMs?: number;
  /**
   * A mutex a process takes again and again (the events log's): from its second release on, the
   * lock file is kept as the process's token (renamed, not removed) and the lock is taken by
   * linking the token to the lock name: exclusive like the create, with no file made or removed
   * (see Token).
   */
  token?: boolean;
}

/**
 * A process's token for a mutex taken again and again: a file beside the lock holding this
 * process's record, linked to the lock name to take the lock (link fails when the name exists,
 * as an exclusive create does) and unlinked from it to let go. A link makes no inode and writes no
 * bytes; a create and its removal do both (and on ext4 each waits for the running journal commit).
 * The record is the token's: a reader of the lock judges it as it judges a created one (its pid,
 * start, host; its age by its mtime, so a token is made afresh once it is TOKEN_MS old, for the
 * other hosts that judge by age). Removed at a normal exit; a killed process's token is removed
 * by the next process that makes one (its pid is dead).
 */
interface Token {
  path: string;
  made: number;
  dev: number;
  ino: number;
}

const TOKEN_MS = 10_000;
const tokens = new Map<string, Token>();
/** Lock paths released once by this process: the next release keeps its file as the token. */
const releasedOnce = new Set<string>();
/** Lock paths whose file system refused a link: created and removed as before. */
const noLinks = new Set<string>();
let exitHooked = false;

function tokenPath(lockPath: string): string {
  return path.join(path.dirname(lockPath), `.${path.basename(lockPath)}.${process.pid}.${randomHex(4)}.token`);
}

/** Removes the tokens of dead processes beside `lockPath` (`.<lock name>.<pid>.<hex>.token`). */
function sweepTokens(lockPath: string): void {
  const prefix = `.${path.basename(lockPath)}.`;
  let names: string[];
  try {
    names = fs.readdirSync(path.dirname(lockPath));
  } catch {
    return;
  }
  for (const n of names) {
    if (!n.startsWith(prefix) || !n.endsWith('.token')) continue;
    const pid = Number(n.slice(prefix.length).split('.')[0]);
    if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid || pidAlive(pid)) continue;
    try {
      fs.unlinkSync(path.join(path.dirname(lockPath), n));
    } catch {
      // removed by another process
    }
  }
}

/** Keeps the lock file this process holds as its token (renamed beside it), instead of removing it. */
function keepAsToken(lockPath: string): boolean {
  const old = tokens.get(lockPath);
  const p = tokenPath(lockPath);
  try {
    const st = fs.lstatSync(lockPath);
    fs.renameSync(lockPath, p);
    tokens.set(lockPath, { path: p, made: st.mtimeMs, dev: st.dev, ino: st.ino });
  } catch {
    return false;
  }
  if (old) removeToken(old);
  else sweepTokens(lockPath);
  if (!exitHooked) {
    exitHooked = true;
    process.on('exit', () => {
      for (const t of tokens.values()) removeToken(t);
    });
  }
  return true;
}

function removeToken(t: Token): void {
  try {
    const now = fs.lstatSync(t.path, { throwIfNoEntry: false });
    if (now && now.dev === t.dev && now.ino === t.ino) fs.unlinkSync(t.path);
  } catch {
    // gone already
  }
}

/** Takes `lockPath` by linking this process's token to it: true when taken, false when it is held; undefined: no usable token. */
function linkToken(lockPath: string): boolean | undefined {
  const t = tokens.get(lockPath);
  if (!t || Date.now() - t.made > TOKEN_MS) return undefined;
  try {
    fs.linkSync(t.path, lockPath);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    // The token is gone, or links are not supported here (then never tried again): the lock is created instead.
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') noLinks.add(lockPath);
    tokens.delete(lockPath);
    return undefined;
  }
  // The name must be the token itself (a token replaced since is not this process's record).
  const now = fs.lstatSync(lockPath, { throwIfNoEntry: false });
  if (now && now.dev === t.dev && now.ino === t.ino) return true;
  tokens.delete(lockPath);
  return undefined;
}

/**
 * A short-lived cross-process mutex: `lockPath` is created with O_EXCL and removed after `fn`.
 * Held for milliseconds around read-check-write sequences (lease break, take-over, events append).
 * A lock left by a dead process on this host, or older than `staleMs`, is broken. `fn` is told
 * whether the lock was waited for.
 */
export function withMutexSync<T>(lockPath: string, fn: (waited: boolean) => T, options: MutexOptions = {}): T {
  const timeoutMs = options.timeoutMs ?? 5000;
  const staleMs = options.staleMs ?? 30000;
  const deadline = Date.now() + timeoutMs;
  const me: MutexRecord = { pid: process.pid, host: ownHost(), start: ownStartTime(), time: Date.now() };
  let delay = 1;
  let linked = false;
  for (;;) {
    const viaToken = options.token ? linkToken(lockPath) : undefined;
    if (viaToken) {
      linked = true;
      break;
    }
    if (viaToken === undefined) {
      try {
        const fd = fs.openSync(lockPath, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | (fs.constants.O_NOFOLLOW ?? 0), 0o644);
        try {
          me.time = Date.now();
          fs.writeSync(fd, JSON.stringify(me));
        } finally {
          fs.closeSync(fd);
        }
        break;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      }
    }
    breakIfStale(lockPath, staleMs);
    if (Date.now() > deadline) {
      throw new WaymarkError('locked', `Timed out after ${timeoutMs} ms waiting for ${lockPath}; if no Waymark process is running, delete that file.`, lockPath);
    }
    sleepSync(delay);
    delay = Math.min(delay * 2, 20);
  }
  try {
    // `waited`: the lock was held by another and slept on (anything proved before the wait may have changed).
    return fn(delay > 1);
  } finally {
    // A lock file created by this process (not linked) is kept as its token from the second release on.
    const keep = options.token && !linked && !noLinks.has(lockPath) && (releasedOnce.has(lockPath) || tokens.has(lockPath)) && ownsLock(lockPath, me);
    if (options.token && !linked) releasedOnce.add(lockPath);
    if (!keep || !keepAsToken(lockPath)) {
      try {
        fs.unlinkSync(lockPath);
      } catch {
        // already broken as stale by another process after a very long hold; nothing to undo
      }
    }
  }
}

/** The lock file at `lockPath` is the one this process created with `me` (not broken and taken by another since). */
function ownsLock(lockPath: string, me: MutexRecord): boolean {
  try {
    return fs.readFileSync(lockPath, 'utf8') === JSON.stringify(me);
  } catch {
    return false;
  }
}

function breakIfStale(lockPath: string, staleMs: number): void {
  let text: string;
  let mtime: number;
  let fd: number;
  try {
    // A FIFO or folder planted at the lock path is refused here (exit 2), never waited on.
    fd = openInternalSync(lockPath, fs.constants.O_RDONLY, { what: 'lock' });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return; // released meanwhile
    throw e;
  }
  try {
    text = fs.readFileSync(fd, 'utf8');
    mtime = fs.fstatSync(fd).mtimeMs;
  } finally {
    fs.closeSync(fd);
  }
  let rec: Partial<MutexRecord> = {};
  try {
    rec = JSON.parse(text) as MutexRecord;
  } catch {
    // written but not yet filled, or torn by a crash: judge by age alone
  }
  const age = Date.now() - mtime;
  const sameHost = rec.host === ownHost() && typeof rec.pid === 'number';
  const dead = sameHost && !holderAlive(rec.pid!, rec.start);
  const emptyAndOld = !rec.pid && age > 2000;
  // On this host a live holder keeps its lock however old (it may be paused); elsewhere, by age.
  if (dead || emptyAndOld || (!sameHost && age > staleMs)) {
    try {
      // Re-read right before removing so a fresh lock taken meanwhile is left alone.
      if (fs.readFileSync(lockPath, 'utf8') === text) fs.unlinkSync(lockPath);
    } catch {
      // gone already
    }
  }
}
