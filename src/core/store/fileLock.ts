import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as crypto from 'node:crypto';
import { WaymarkError } from '../errors';
import { ioError, removeStaleTemps } from './atomicWrite';
import { holderAlive, ownHost, ownStartTime, randomHex, sweepDeadOwners } from './processes';
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
  /**
   * `file` is already its real path, resolved by the caller for this change a moment ago (the
   * transaction engine's `targetOf`, the containment check that names every file of a change):
   * it is not resolved a second time.
   */
  real?: boolean;
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
    if (lock.info.host === ownHost()) {
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

/**
 * A lock slot: a file of this process in the lock folder (`.<pid>.<n>.lock-slot`), made once and
 * kept open; each lock's record is written over it in place and the slot is hard-linked at the lock
 * path (the link is the exclusive create: EEXIST when the lock is held). Taking and releasing a lock
 * then allocates and frees no inode, only a name: on ext4 each new file is a scan of the inode
 * bitmap past the inodes freed in the last seconds (or a journal handle), one per write before.
 * A slot whose lock name was not ours at release (broken, linked elsewhere) is never used again.
 * Removed at a normal exit; a killed process's slots are removed by the next process that makes a
 * slot in that folder, or by the sweep of dead locks (its pid is dead).
 */
interface LockSlot {
  dir: string;
  path: string;
  fd: number;
  dev: number;
  ino: number;
  /** Bytes in the slot: a shorter record is padded with spaces to it (JSON allows them), never truncated. */
  size: number;
  busy: boolean;
}

const lockSlots: LockSlot[] = [];
/** Free slots kept a folder; a face holding more locks at once makes more, removed at release. */
const FREE_SLOTS = 8;
/** Lock folders whose file system refused a link, or where a slot cannot be made: locks are created and removed as before. */
const noSlots = new Set<string>();
/** Lock folders this process swept of dead processes' slots (once, when it made its first slot there). */
const sweptSlots = new Set<string>();
let slotCount = 0;
let slotExitHooked = false;

const SLOT_NAME = /^\.(\d+)\.\d+\.lock-slot$/;

function takeSlot(dir: string): LockSlot | undefined {
  if (noSlots.has(dir)) return undefined;
  const free = lockSlots.find((s) => !s.busy && s.dir === dir);
  if (free) {
    free.busy = true;
    return free;
  }
  if (!sweptSlots.has(dir)) {
    sweptSlots.add(dir);
    sweepDeadSlots(dir);
    ignoreInGit(dir);
  }
  const p = path.join(dir, `.${process.pid}.${slotCount++}.lock-slot`);
  let fd: number;
  try {
    fd = fs.openSync(p, fs.constants.O_RDWR | fs.constants.O_CREAT | fs.constants.O_EXCL | (fs.constants.O_NOFOLLOW ?? 0), 0o644);
  } catch {
    noSlots.add(dir);
    return undefined;
  }
  const st = fs.fstatSync(fd);
  const slot: LockSlot = { dir, path: p, fd, dev: st.dev, ino: st.ino, size: 0, busy: true };
  lockSlots.push(slot);
  if (!slotExitHooked) {
    slotExitHooked = true;
    process.on('exit', () => {
      for (const s of [...lockSlots]) dropSlot(s);
    });
  }
  return slot;
}

/** Forgets a slot: its name removed when it still names the slot's file, its descriptor closed. */
function dropSlot(s: LockSlot): void {
  const i = lockSlots.indexOf(s);
  if (i >= 0) lockSlots.splice(i, 1);
  try {
    const now = fs.lstatSync(s.path, { throwIfNoEntry: false });
    if (now && now.dev === s.dev && now.ino === s.ino) fs.unlinkSync(s.path);
  } catch {
    // removed already
  }
  try {
    fs.closeSync(s.fd);
  } catch {
    // closed already
  }
}

function freeSlot(s: LockSlot): void {
  s.busy = false;
  if (lockSlots.filter((x) => !x.busy && x.dir === s.dir).length > FREE_SLOTS) dropSlot(s);
}

/** Writes `body` over the slot in place (padded to the bytes already there) and returns the file's identity after. */
function writeSlot(s: LockSlot, body: string): fs.Stats {
  const bytes = Buffer.from(body);
  const buf = bytes.length >= s.size ? bytes : Buffer.concat([bytes, Buffer.alloc(s.size - bytes.length, 0x20)]);
  fs.writeSync(s.fd, buf, 0, buf.length, 0);
  s.size = buf.length;
  return fs.fstatSync(s.fd);
}

/**
 * A `.gitignore` of `*` in the lock folder, made once (never replaced: O_EXCL): a long-lived
 * process's lock slots, and a lock held at that moment, are never committed with `.waymark/`.
 */
function ignoreInGit(dir: string): void {
  try {
    fs.writeFileSync(path.join(dir, '.gitignore'), '# Waymark locks: live only while a process runs; never commit.\n*\n', { flag: 'wx', mode: 0o644 });
  } catch {
    // there already, or the folder is not ours to write: the locks work the same
  }
}

/** Removes the slots of dead processes in `dir` (`.<pid>.<n>.lock-slot`); returns the removed paths. */
function sweepDeadSlots(dir: string): string[] {
  return sweepDeadOwners(dir, (n) => {
    const m = SLOT_NAME.exec(n);
    return m ? Number(m[1]) : undefined;
  });
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
  /**
   * Releases it with the lock name's removal on the thread pool (a directory change: on ext4 one of
   * the costliest calls of a write), so that a change's answer does not wait for it. Until the
   * removal is done, this process's next acquire of the same lock waits for it (not for the lock's
   * retry delay), and the slot is not written again; another process finds the lock held a moment
   * longer, as if this one had released it a moment later. A process killed before the removal
   * leaves a lock of a dead holder, which the next writer breaks as it breaks any (swept, logged).
   */
  releaseSoon(): void;
  /**
   * releaseSoon once `first` settled (the flush of the change's history lines, made after its
   * answer: engine/transaction.ts), the lock held until then; this process's next acquire of the
   * same lock waits for both, as for releaseSoon's removal. `releaseNow` (the process's exit) lets go of it at once.
   */
  releaseAfter(first: Promise<unknown>): { releaseNow: () => void; released: Promise<void> };
}

/** Lock names whose removal (HeldLock.releaseSoon) is still running, by lock path. */
const releasing = new Map<string, Promise<void>>();

/** Takes the lock for `file`, waiting (bounded) while another live process holds it. */
export async function acquireFileLock(file: string, options: FileLockOptions = {}): Promise<HeldLock> {
  // One real path, resolved afresh (or by the caller just before), names the lock and is recorded in it.
  const real = options.real ? file : resolveRealPath(file);
  const lockPath = lockPathOfReal(real, options);
  const pending = releasing.get(lockPath);
  if (pending) await pending;
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
    host: ownHost(),
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
  const dir = path.dirname(lockPath);
  let slot: LockSlot | undefined;
  try {
    for (;;) {
      let taken: { fd: number; id: fs.Stats; slot?: LockSlot } | undefined;
      slot ??= takeSlot(dir);
      if (slot) {
        const s = slot;
        try {
          const id = writeSlot(s, body);
          fs.linkSync(s.path, lockPath);
          // The lock name must be the slot's own file (its name replaced since is not this process's record).
          const now = fs.lstatSync(lockPath, { throwIfNoEntry: false });
          if (now && now.dev === id.dev && now.ino === id.ino) taken = { fd: s.fd, id, slot: s };
          else {
            if (now) fs.unlinkSync(lockPath); // the name this link just made, naming another file
            slot = undefined;
            dropSlot(s);
            continue;
          }
        } catch (e) {
          const code = (e as NodeJS.ErrnoException).code;
          if (code !== 'EEXIST') {
            // The slot's name is gone, or links are not supported here (then never tried again in this folder).
            if (code !== 'ENOENT') noSlots.add(dir);
            slot = undefined;
            dropSlot(s);
            continue;
          }
        }
      } else {
        try {
          const fd = fs.openSync(lockPath, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | (fs.constants.O_NOFOLLOW ?? 0), 0o644);
          try {
            fs.writeSync(fd, body);
            taken = { fd, id: fs.fstatSync(fd) };
          } catch (e) {
            fs.closeSync(fd);
            throw e;
          }
        } catch (e) {
          const code = (e as NodeJS.ErrnoException).code;
          if (code !== 'EEXIST') throw ioError(e, lockPath, 'create the lock file');
        }
      }
      if (taken) {
        // The lock's file (its slot, or a file of its own held open) stays open while the lock is
        // held: its file (device and inode) is this lock's identity, and an open file's inode cannot
        // be freed and given to another file, so the lock path naming that same file means the lock
        // is still ours (see `ours`).
        const { fd, id } = taken;
        const held = taken.slot;
        if (broken.length) for (const r of sweepDeadLocks(dir, staleMs, options.root)) broken.push(`removed ${r}: its holder died`);
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
        /** The lock name is still this lock's (`ours`); false when it cannot be told. */
        const stillOurs = (): boolean => {
          try {
            return ours();
          } catch {
            return false;
          }
        };
        /** Its file once the lock name is gone (`unlinked`) or was not ours to remove. */
        const settle = (unlinked: boolean): void => {
          // A slot whose lock name was not ours (or could not be removed) may still be linked at a lock path: never written again.
          if (!held) fs.closeSync(fd);
          else if (unlinked) freeSlot(held);
          else dropSlot(held);
        };
        const release = (): void => {
          if (released) return;
          released = true;
          let unlinked = false;
          try {
            if (ours()) {
              fs.unlinkSync(lockPath);
              unlinked = true;
            }
          } catch {
            // already gone (broken as stale by someone else): nothing to release
          } finally {
            settle(unlinked);
          }
        };
        const releaseSoon = (): void => {
          if (released) return;
          released = true;
          if (!stillOurs()) return settle(false);
          const done: Promise<void> = new Promise<void>((resolve) => {
            fs.unlink(lockPath, (e) => {
              settle(!e);
              if (releasing.get(lockPath) === done) releasing.delete(lockPath);
              resolve();
            });
          });
          releasing.set(lockPath, done);
        };
        return {
          path: lockPath,
          info,
          broken,
          assertHeld() {
            if (!stillOurs()) {
              throw new WaymarkError(
                'conflict',
                `The lock on ${file} was broken by another process while this one was paused; nothing was written. Re-read the file and retry.`,
                file,
                { lock: lockPath },
              );
            }
          },
          releaseSoon,
          releaseAfter(first) {
            if (released) return { releaseNow: () => undefined, released: Promise.resolve() };
            let pending = true;
            // The name's removal (releaseSoon's), awaited in turn; none when the lock was not ours any more.
            const letGo = (): Promise<void> | undefined => {
              if (!pending) return undefined;
              pending = false;
              releaseSoon();
              const removal = releasing.get(lockPath);
              return removal !== done ? removal : undefined;
            };
            const done: Promise<void> = first.then(letGo, letGo);
            releasing.set(lockPath, done);
            void done.finally(() => {
              if (releasing.get(lockPath) === done) releasing.delete(lockPath);
            });
            return {
              releaseNow: () => {
                if (!pending) return;
                pending = false;
                release();
              },
              released: done,
            };
          },
          release,
        };
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
  } catch (e) {
    // Not taken: the slot goes (it may be linked at the lock path when a check after the link failed).
    if (slot) dropSlot(slot);
    throw e;
  }
}

/**
 * Removes the locks in `lockDir` whose holder died on this host (they belong to gate, memory
 * and other files that may never be locked again, so nobody would break them), and the temp files
 * their holders left beside their files. Called when a stale lock was found: a sign that processes
 * were killed. Returns the removed paths.
 */
export function sweepDeadLocks(lockDir: string, staleMs = 60_000, root?: string): string[] {
  const removed: string[] = sweepDeadSlots(lockDir);
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
    if (!cur?.info || cur.info.host !== ownHost()) continue;
    if (staleReason(cur, staleMs) && breakLock(p, cur.raw)) {
      removed.push(p);
      // Its holder may have died with temp files written beside its file (a transaction prepares
      // every file of the change before its first rename).
      // Only inside the workspace: a lock file is data found on disk.
      const rel = root && typeof cur.info.file === 'string' ? path.relative(realPathOnce(root), cur.info.file) : '..';
      if (rel && !/^\.\.(?:[\\/]|$)/.test(rel) && !path.isAbsolute(rel)) removed.push(...removeStaleTemps(cur.info.file));
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

