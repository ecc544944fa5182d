import * as fs from 'node:fs';
import * as os from 'node:os';
import { WaymarkError } from '../errors';
import { pidAlive } from '../store/processes';


const sleepCell = new Int32Array(new SharedArrayBuffer(4));
export function sleepSync(ms: number): void {
  Atomics.wait(sleepCell, 0, 0, ms);
}

interface MutexRecord {
  pid: number;
  host: string;
  time: number;
}

export interface MutexOptions {
  /** Give up after this long (ms). Default 5000. */
  timeoutMs?: number;
  /** A lock older than this is stale even when its process is alive (ms). Default 30000. */
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
  const me: MutexRecord = { pid: process.pid, host: os.hostname(), time: Date.now() };
  let delay = 1;
  for (;;) {
    try {
      const fd = fs.openSync(lockPath, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL, 0o644);
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
  try {
    text = fs.readFileSync(lockPath, 'utf8');
    mtime = fs.statSync(lockPath).mtimeMs;
  } catch {
    return; // released meanwhile
  }
  let rec: Partial<MutexRecord> = {};
  try {
    rec = JSON.parse(text) as MutexRecord;
  } catch {
    // written but not yet filled, or torn by a crash: judge by age alone
  }
  const age = Date.now() - mtime;
  const dead = rec.host === os.hostname() && typeof rec.pid === 'number' && !pidAlive(rec.pid);
  const emptyAndOld = !rec.pid && age > 2000;
  if (dead || emptyAndOld || age > staleMs) {
    try {
      // Re-read right before removing so a fresh lock taken meanwhile is left alone.
      if (fs.readFileSync(lockPath, 'utf8') === text) fs.unlinkSync(lockPath);
    } catch {
      // gone already
    }
  }
}
