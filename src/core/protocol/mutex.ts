import * as fs from 'node:fs';
import { WaymarkError } from '../errors';
import { holderAlive, ownHost, ownStartTime } from '../store/processes';
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
}

/**
 * A short-lived cross-process mutex: `lockPath` is created with O_EXCL and removed after `fn`.
 * Held for milliseconds around read-check-write sequences (lease break, take-over, events append).
 * A lock left by a dead process on this host, or older than `staleMs`, is broken.
 */
export function withMutexSync<T>(lockPath: string, fn: () => T, options: MutexOptions = {}): T {
  const timeoutMs = options.timeoutMs ?? 5000;
  const staleMs = options.staleMs ?? 30000;
  const deadline = Date.now() + timeoutMs;
  const me: MutexRecord = { pid: process.pid, host: ownHost(), start: ownStartTime(), time: Date.now() };
  let delay = 1;
  for (;;) {
    try {
      const fd = fs.openSync(lockPath, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | (fs.constants.O_NOFOLLOW ?? 0), 0o644);
      try {
        fs.writeSync(fd, JSON.stringify(me));
      } finally {
        fs.closeSync(fd);
      }
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    breakIfStale(lockPath, staleMs);
    if (Date.now() > deadline) {
      throw new WaymarkError('locked', `Timed out after ${timeoutMs} ms waiting for ${lockPath}; if no Waymark process is running, delete that file.`, lockPath);
    }
    sleepSync(delay);
    delay = Math.min(delay * 2, 20);
  }
  try {
    return fn();
  } finally {
    try {
      fs.unlinkSync(lockPath);
    } catch {
      // already broken as stale by another process after a very long hold; nothing to undo
    }
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
