import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as crypto from 'node:crypto';
import { WaymarkError } from '../errors';
import { ioError, removeStaleTemps } from './atomicWrite';
import { holderAlive, ownHost, ownStartTime, randomHex } from './processes';
import { openInternalSync, realPathOnce, resolveRealPath, safeMkdir } from './safePath';

export interface FileLockOptions {
  /** Folder for lock files. Default `<root>/.waymark/locks` when `root` is given, else `<tmpdir>/waymark-locks`. */
  lockDir?: string;
  /** Workspace folder the file belongs to. */
  root?: string;
  /** How long to wait for a held lock before giving up with WaymarkError('locked'). Default 10 s. */
  waitMs?: number;
  /**
   * A lock held from another host is stale after this long. Default 60 s. A lock held on this
   * host is stale only when its process is gone (or its pid now names another process): a live
   * holder that is paused (SIGSTOP, a sleeping laptop) keeps its lock whatever its age.
   */
  staleMs?: number;
  /** What the lock is for (recorded in the lock file). */
  purpose?: string;
}

/** Content of a lock file. */
export interface LockInfo {
  pid: number;
  host: string;
  /** Start time of the holder process (see processStartTime), to tell a reused pid apart. */
  start?: string;
  time: string;
  token: string;
  file: string;
  purpose?: string;
}

const HOST = ownHost();

/**
 * Where the lock for `file` lives. One lock file per file, named by the SHA-256 of its REAL path:
 * the same file reached through a linked folder (or a linked workspace) takes the same lock.
 */
export function lockPathFor(file: string, options: FileLockOptions = {}): string {
  // Afresh, never cached: two writers of one real file must meet at one lock.
  return lockPathOfReal(resolveRealPath(file), options);
}

function lockPathOfReal(real: string, options: FileLockOptions): string {
  const dir = options.lockDir ?? (options.root ? path.join(options.root, '.waymark', 'locks') : path.join(os.tmpdir(), 'waymark-locks'));
  return path.join(dir, `${lockNameOf(real)}.lock`);
}

/** A lock's name by the real path it locks (the path is resolved afresh each time; only its hash is kept). */
const lockNames = new Map<string, string>();

function lockNameOf(real: string): string {
  let name = lockNames.get(real);
  if (name === undefined) {
    name = crypto.createHash('sha256').update(real).digest('hex').slice(0, 32);
    // One per file a long-lived face writes; a face writing more files than this hashes again.
    if (lockNames.size >= 1024) lockNames.clear();
    lockNames.set(real, name);
  }
  return name;
}

function readLock(lockPath: string): { info?: LockInfo; raw: string; mtimeMs: number } | undefined {
  try {
    // Non-blocking, regular files only: a FIFO planted at a lock path must not hang us.
    const fd = openInternalSync(lockPath, fs.constants.O_RDONLY, { what: 'lock' });
    let raw: string;
    let mtimeMs: number;
    try {
      raw = fs.readFileSync(fd, 'utf8');
      mtimeMs = fs.fstatSync(fd).mtimeMs;
    } finally {
      fs.closeSync(fd);
    }
    let info: LockInfo | undefined;
    try {
      const v = JSON.parse(raw) as LockInfo;
      if (v && typeof v.pid === 'number' && typeof v.host === 'string') info = v;
    } catch {
      // being written right now, or garbage: judged by age below
    }
    return { info, raw, mtimeMs };
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}


/** Why the lock is stale (its owner is gone or it is too old), or undefined when it is live. */
export function staleReason(lock: { info?: LockInfo; mtimeMs: number }, staleMs: number, now = Date.now()): string | undefined {
  const age = now - lock.mtimeMs;
  if (lock.info) {
    if (lock.info.host === HOST) {
      // Same host: the process table is the truth. Age alone never breaks a live holder's lock.
      if (holderAlive(lock.info.pid, lock.info.start)) return undefined;
      return `its process ${lock.info.pid} is gone`;
    }
    const t = Date.parse(lock.info.time);
    if (Number.isFinite(t) && now - t > staleMs) return `it is ${Math.round((now - t) / 1000)} s old`;
    if (age > staleMs) return `it is ${Math.round(age / 1000)} s old`;
    return undefined;
  }
  // Unparseable: a writer may be between open and write; give it a moment.
  return age > Math.min(staleMs, 2000) ? 'it is unreadable and old' : undefined;
}

/** Removes `lockPath` only when it still holds exactly `raw` (never someone else's fresh lock). */
function breakLock(lockPath: string, raw: string): boolean {
  const aside = `${lockPath}.${process.pid}.${crypto.randomBytes(4).toString('hex')}.broken`;
  try {
    fs.renameSync(lockPath, aside);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return true;
    throw e;
  }
  let moved = '';
  try {
    moved = fs.readFileSync(aside, 'utf8');
  } catch {
    // gone: nothing to restore
  }
  if (moved !== raw) {
    // We moved a lock someone took after we judged the old one: put it back if the slot is free.
    try {
      fs.linkSync(aside, lockPath);
    } catch {
      // the slot was taken again; that owner wins, the moved one expires by age
    }
  }
  try {
    fs.unlinkSync(aside);
  } catch {
    // already removed
  }
  return moved === raw;
}

export interface HeldLock {
  path: string;
  info: LockInfo;
  /** Stale locks broken while acquiring (for the log). */
  broken: string[];
  /**
   * Throws WaymarkError('conflict') unless the lock file still holds this lock (a holder from
   * another host may have judged it stale and broken it). Call right before a rename.
   */
  assertHeld(): void;
  release(): void;
}

/** Takes the lock for `file`, waiting (bounded) while another live process holds it. */
export async function acquireFileLock(file: string, options: FileLockOptions = {}): Promise<HeldLock> {
  // One real path, resolved afresh, names the lock and is recorded in it.
  const real = resolveRealPath(file);
  const lockPath = lockPathOfReal(real, options);
  const waitMs = options.waitMs ?? 10_000;
  const staleMs = options.staleMs ?? 60_000;
  try {
    if (options.root) safeMkdir(options.root, path.dirname(lockPath));
    else fs.mkdirSync(path.dirname(lockPath), { recursive: true });
  } catch (e) {
    if (WaymarkError.is(e)) throw e;
    throw ioError(e, lockPath, 'create the lock folder for');
  }
  const info: LockInfo = {
    pid: process.pid,
    host: HOST,
    start: ownStartTime(),
    time: new Date().toISOString(),
    token: randomHex(8),
    file: real,
    purpose: options.purpose,
  };
  const body = JSON.stringify(info);
  const deadline = Date.now() + waitMs;
  const broken: string[] = [];
  let delay = 2;
  let lastHolder: LockInfo | undefined;
  for (;;) {
    try {
      const fd = fs.openSync(lockPath, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | (fs.constants.O_NOFOLLOW ?? 0), 0o644);
      // The descriptor stays open while the lock is held: its file (device and inode) is this
      // lock's identity, and an open file's inode cannot be freed and given to another file, so
      // the lock path naming that same file means the lock is still ours (see `ours`).
      let id: fs.Stats;
      try {
        fs.writeSync(fd, body);
        id = fs.fstatSync(fd);
      } catch (e) {
        fs.closeSync(fd);
        throw e;
      }
      if (broken.length) for (const r of sweepDeadLocks(path.dirname(lockPath), staleMs, options.root)) broken.push(`removed ${r}: its holder died`);
      let released = false;
      /**
       * The lock file still holds this lock, by its token (the holder's identity, whatever else
       * was rewritten in the record). A breaker moves the file aside (and may link it back), and
       * a lock taken after that is another file: the lock path naming this very file, unchanged
       * since it was written (size, mtime), holds this token without reading it; anything else
       * (rewritten in place) is read.
       */
      const ours = (): boolean => {
        const now = fs.lstatSync(lockPath, { throwIfNoEntry: false });
        if (!now || now.ino !== id.ino || now.dev !== id.dev) return false;
        if (now.size === id.size && now.mtimeMs === id.mtimeMs) return true;
        try {
          return (JSON.parse(fs.readFileSync(lockPath, 'utf8')) as LockInfo).token === info.token;
        } catch {
          return false;
        }
      };
      return {
        path: lockPath,
        info,
        broken,
        assertHeld() {
          let held: boolean;
          try {
            held = ours();
          } catch {
            held = false;
          }
          if (!held) {
            throw new WaymarkError(
              'conflict',
              `The lock on ${file} was broken by another process while this one was paused; nothing was written. Re-read the file and retry.`,
              file,
              { lock: lockPath },
            );
          }
        },
        release() {
          if (released) return;
          released = true;
          try {
            if (ours()) fs.unlinkSync(lockPath);
          } catch {
            // already gone (broken as stale by someone else): nothing to release
          } finally {
            fs.closeSync(fd);
          }
        },
      };
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== 'EEXIST') throw ioError(e, lockPath, 'create the lock file');
    }
    const current = readLock(lockPath);
    if (!current) continue;
    lastHolder = current.info;
    const why = staleReason(current, staleMs);
    if (why) {
      if (breakLock(lockPath, current.raw)) broken.push(`broke a stale lock on ${file}: ${why}`);
      continue;
    }
    if (Date.now() >= deadline) {
      const who = lastHolder ? `process ${lastHolder.pid} on ${lastHolder.host} since ${lastHolder.time}` : 'another process';
      throw new WaymarkError(
        'locked',
        `${file} is locked by ${who}; retry when it finishes (or delete ${lockPath} if that process is gone).`,
        file,
        { lock: lockPath, holder: lastHolder },
      );
    }
    await new Promise((r) => setTimeout(r, delay + Math.random() * delay));
    delay = Math.min(delay * 2, 50);
  }
}

/**
 * Removes the locks in `lockDir` whose holder died on this host (they belong to gate, memory
 * and other files that may never be locked again, so nobody would break them), and the temp files
 * their holders left beside their files. Called when a stale lock was found: a sign that processes
 * were killed. Returns the removed paths.
 */
export function sweepDeadLocks(lockDir: string, staleMs = 60_000, root?: string): string[] {
  const removed: string[] = [];
  let names: string[];
  try {
    names = fs.readdirSync(lockDir);
  } catch {
    return removed;
  }
  for (const n of names) {
    const p = path.join(lockDir, n);
    if (/\.lock\.\d+\.[0-9a-f]+\.broken$/.test(n)) {
      // left by a breaker killed between its rename and its unlink
      const pid = Number(n.split('.').slice(-3)[0]);
      if (!holderAlive(pid)) {
        try {
          fs.unlinkSync(p);
          removed.push(p);
        } catch {
          // gone already
        }
      }
      continue;
    }
    if (!n.endsWith('.lock')) continue;
    let cur: ReturnType<typeof readLock>;
    try {
      cur = readLock(p);
    } catch {
      continue; // not a lock Waymark can judge (a FIFO...): left for the error when it is used
    }
    if (!cur?.info || cur.info.host !== HOST) continue;
    if (staleReason(cur, staleMs) && breakLock(p, cur.raw)) {
      removed.push(p);
      // Its holder may have died with temp files written beside its file (a transaction prepares
      // every file of the change before its first rename).
      // Only inside the workspace: a lock file is data found on disk.
      const rel = root && typeof cur.info.file === 'string' ? path.relative(realPathOnce(root), cur.info.file) : '..';
      if (rel && !rel.startsWith('..') && !path.isAbsolute(rel)) removed.push(...removeStaleTemps(cur.info.file));
    }
  }
  return removed;
}

/** Runs `fn` while holding the lock for `file`; always releases it. */
export async function withFileLock<T>(file: string, fn: () => T | Promise<T>, options: FileLockOptions = {}): Promise<T> {
  const lock = await acquireFileLock(file, options);
  try {
    return await fn();
  } finally {
    lock.release();
  }
}

