import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

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

/**
 * Removes the files in `dir` that a process left which is gone: `ownerOf` names the pid a file
 * belongs to (undefined: not such a file); this process's own and a live process's are kept.
 * Returns the removed paths. A file another sweeper removed first is passed over.
 */
export function sweepDeadOwners(dir: string, ownerOf: (name: string) => number | undefined): string[] {
  const removed: string[] = [];
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return removed;
  }
  for (const name of names) {
    const pid = ownerOf(name);
    if (pid === undefined || pid === process.pid || pidAlive(pid)) continue;
    try {
      fs.rmSync(path.join(dir, name), { force: true });
      removed.push(path.join(dir, name));
    } catch {
      // removed by another process
    }
  }
  return removed;
}

/**
 * When process `pid` started, as an opaque string that differs between two processes that
 * had the same pid: on Linux field 22 of /proc/PID/stat (clock ticks since boot). Undefined
 * where it cannot be known (other systems, /proc hidden); callers then fall back to the pid.
 */
export function processStartTime(pid: number): string | undefined {
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  let text: string;
  try {
    text = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name (field 2) is in parentheses and may itself hold spaces or ')'.
  const close = text.lastIndexOf(')');
  if (close < 0) return undefined;
  const fields = text.slice(close + 2).split(' ');
  // fields[0] is field 3 (state), so field 22 is fields[19].
  const start = fields[19];
  return start && /^\d+$/.test(start) ? start : undefined;
}

let ownStart: string | undefined | null = null;

/** This process's start time (see processStartTime), computed once. */
export function ownStartTime(): string | undefined {
  if (ownStart === null) ownStart = processStartTime(process.pid);
  return ownStart;
}

/**
 * True when the process that recorded (`pid`, `startTime`) on this host still runs: the pid is
 * alive and, when both start times are known, it is the same process (not a reused pid).
 */
export function holderAlive(pid: number, startTime?: string): boolean {
  if (!pidAlive(pid)) return false;
  if (!startTime) return true;
  const now = processStartTime(pid);
  return now === undefined || now === startTime;
}

let host: string | undefined;

/** This host's name, asked once (a lock, intent or mutex record names it; `uname` per record otherwise). */
export function ownHost(): string {
  host ??= os.hostname();
  return host;
}

let pool: Buffer = Buffer.alloc(0);
let poolAt = 0;

/**
 * `bytes` random bytes as hex, for names and tokens that must not collide (intent ids, lock
 * tokens, temp file names): from the system's random source, fetched 1 KiB at a time (a write
 * takes three; each call into the random source cost more than the rest of making the name).
 */
export function randomHex(bytes: number): string {
  if (poolAt + bytes > pool.length) {
    const n = Math.max(1024, bytes);
    pool = systemRandom(n) ?? crypto.randomBytes(n);
    poolAt = 0;
  }
  const out = pool.toString('hex', poolAt, poolAt + bytes);
  poolAt += bytes;
  return out;
}

/**
 * `n` bytes of the kernel's random source read from /dev/urandom (the source crypto.randomBytes
 * draws from), or undefined where there is none (Windows) or it is not the character device: a
 * write's temp name is the only thing a `validate` after a story edit needed node:crypto for, and
 * loading it cost ~50 M instructions (~4 % of that run); an open and a read cost ~10 µs.
 */
function systemRandom(n: number): Buffer | undefined {
  if (process.platform === 'win32') return undefined;
  let fd: number | undefined;
  try {
    fd = fs.openSync('/dev/urandom', fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0));
    if (!fs.fstatSync(fd).isCharacterDevice()) return undefined;
    const out = Buffer.allocUnsafe(n);
    let got = 0;
    while (got < n) {
      const r = fs.readSync(fd, out, got, n - got, null);
      if (r <= 0) return undefined;
      got += r;
    }
    return out;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}
