import * as fs from 'node:fs';
import * as path from 'node:path';
import { WaymarkError, errorMessage } from '../errors';
import { sweepDeadOwners } from './processes';
import { safeWritePath, resolveRealPath, freshRealPath, notRegularError, tempPathBeside, unshareLinked } from './safePath';

export interface AtomicWriteOptions {
  /** File mode for a new file (an existing file keeps its own). Default 0o644 (less umask). */
  mode?: number;
  /** Refuse to create the file when it does not exist. */
  mustExist?: boolean;
  /**
   * The workspace folder: the real path of the target (links followed) must lie inside its real
   * path, else WaymarkError('usage') naming the link. Every writer inside a workspace passes it.
   */
  root?: string;
  /**
   * The file is Waymark's alone (a cache under `.waymark/cache/`): a symbolic link at its name can
   * only have been planted, and is replaced, never followed (with `root`, the folder's real path is
   * the one checked inside the workspace).
   */
  replaceLink?: boolean;
  /** What the file is, for error messages (e.g. `history`, `gate file`). */
  what?: string;
  /**
   * Runs after the new bytes are durable in the temp file and right before the rename: the last
   * moment to refuse (lock no longer ours, file changed since it was read). A throw removes the
   * temp file and leaves the target untouched.
   */
  beforeRename?: (target: string) => void;
  /**
   * Default true: fsync the file and its folder (the change survives a power loss). False only for
   * files that can be rebuilt from the workspace (the git ticket store's projection, committed by
   * git at the end of the run): still atomic against a crashed process, not against a power loss.
   */
  durable?: boolean;
}

export function ioError(e: unknown, file: string, action: string): WaymarkError {
  const code = (e as NodeJS.ErrnoException)?.code ?? '';
  const dir = path.dirname(file);
  let hint: string;
  switch (code) {
    case 'EACCES':
    case 'EPERM':
      // EPERM on the rename also comes from an immutable (chattr +i) or append-only file.
      hint = code === 'EPERM'
        ? `the file or its folder ${dir} may not be changed (read-only, or marked immutable: check chmod u+w and lsattr); make both writable or work on a copy`
        : `the folder ${dir} is not writable; make it writable (chmod u+w) or work on a copy`;
      break;
    case 'EROFS':
      hint = `the folder ${dir} is on a read-only file system; work on a writable copy`;
      break;
    case 'ENOSPC':
    case 'EDQUOT':
      hint = 'the disk is full; free some space and retry';
      break;
    case 'ENOTDIR':
    case 'ENOENT':
      hint = `the folder ${dir} does not exist (or a part of its path is a file); check the path`;
      break;
    case 'EISDIR':
      hint = `${file} is a directory, not a file`;
      break;
    default:
      hint = errorMessage(e);
  }
  return new WaymarkError('io', `Cannot ${action} ${file}: ${hint}${code ? ` (${code})` : ''}. Nothing was changed.`, file, { code });
}

/**
 * Writes `data` to `file` so that a reader (or a crash) sees the old bytes or the new bytes,
 * never a mix: a temp file in the same folder, fsync, rename over the target, fsync the folder.
 * An existing file keeps its mode. Symlinks are followed (the link's target is replaced) once,
 * here; with `options.root` that real path is checked inside the workspace, and the folder is
 * checked again (same device and inode) right before the rename, so a link swapped in between
 * cannot redirect the write. On failure the temp file is removed and a WaymarkError says what to do.
 */
export function writeFileAtomic(file: string, data: string | Uint8Array, options: AtomicWriteOptions = {}): void {
  const p = prepareAtomicWrite(file, data, options);
  try {
    if (p.durable) fs.fsyncSync(p.fd!);
  } catch (e) {
    abortAtomicWrite(p);
    throw ioError(e, file, 'write');
  }
  commitAtomicWrite(p, options.beforeRename);
  if (p.durable) fsyncDir(p.dir);
}

/**
 * A temp file written beside its target (prepareAtomicWrite), its descriptor still open: not yet
 * fsynced, not renamed. A transaction prepares all its files, flushes them together in a round
 * (preparedFlush, flushRound), then renames each (commitAtomicWrite) and flushes their folders (pathFlush).
 */
export interface PreparedWrite {
  file: string;
  /** The real path the temp file is renamed over. */
  target: string;
  dir: string;
  tmp: string;
  fd: number | undefined;
  durable: boolean;
  checkDir: boolean;
  /** The workspace folder the write was checked against (options.root). */
  root?: string;
  dirId: fs.Stats;
  /** The temp file as renamed (its device, inode, size and mtime, by an fstat right before the rename): what landed at `target`. */
  renamed?: { dev: number; ino: number; size: number; mtimeMs: number };
}

/** The first half of writeFileAtomic: the checks and the temp file with the new bytes (not fsynced). */
export function prepareAtomicWrite(file: string, data: string | Uint8Array, options: AtomicWriteOptions = {}): PreparedWrite {
  let target = file;
  let mode = options.mode ?? 0o644;
  if (options.replaceLink) {
    const dir = path.dirname(path.resolve(options.root ?? '', file));
    target = path.join(options.root ? safeWritePath(options.root, dir) : dir, path.basename(file));
  } else if (options.root) {
    target = safeWritePath(options.root, file);
  } else {
    try {
      target = fs.realpathSync.native(file);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw ioError(e, file, 'write');
      if (options.mustExist) throw new WaymarkError('unreadable', `${file} no longer exists (deleted or moved since it was read); rescan and retry.`, file);
    }
  }
  try {
    const st = fs.lstatSync(target);
    if (st.isSymbolicLink()) {
      // Followed above unless it dangles; with replaceLink, the rename replaces it (a new file's mode).
      if (!options.replaceLink) throw new WaymarkError('usage', `${file} is a dangling symbolic link; remove it, then retry. Nothing was changed.`, file);
    } else {
      if (st.isDirectory()) throw ioError(Object.assign(new Error('is a directory'), { code: 'EISDIR' }), file, 'write');
      if (!st.isFile()) throw notRegularError(file, st, options.what);
      mode = st.mode & 0o7777;
    }
  } catch (e) {
    if (WaymarkError.is(e)) throw e;
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw ioError(e, file, 'write');
    // Missing (the lstat above: safeWritePath followed every link, a dangling one included).
    if (options.mustExist && options.root && !options.replaceLink) throw new WaymarkError('unreadable', `${file} no longer exists (deleted or moved since it was read); rescan and retry.`, file);
  }
  const dir = path.dirname(target);
  let dirId: fs.Stats;
  try {
    dirId = fs.statSync(dir);
  } catch (e) {
    throw ioError(e, file, 'write');
  }
  const tmp = tempPathBeside(target);
  const p: PreparedWrite = { file, target, dir, tmp, fd: undefined, durable: options.durable !== false, checkDir: !!options.root, root: options.root, dirId };
  try {
    p.fd = fs.openSync(tmp, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | (fs.constants.O_NOFOLLOW ?? 0), mode);
    const buf = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    let off = 0;
    while (off < buf.length) off += fs.writeSync(p.fd, buf, off, buf.length - off);
    fs.fchmodSync(p.fd, mode);
  } catch (e) {
    abortAtomicWrite(p);
    throw ioError(e, file, 'write');
  }
  return p;
}

/**
 * The second half of writeFileAtomic, after its temp file's flush (preparedFlush): the last check (`beforeRename`), the
 * folder still the one checked, the rename. The folder is not fsynced here (pathFlush, in the transaction's second round). On
 * failure the temp file is removed and the target is untouched.
 */
export function commitAtomicWrite(p: PreparedWrite, beforeRename?: (target: string) => void): void {
  try {
    if (p.fd !== undefined) {
      const fd = p.fd;
      p.fd = undefined;
      const st = fs.fstatSync(fd);
      p.renamed = { dev: st.dev, ino: st.ino, size: st.size, mtimeMs: st.mtimeMs };
      fs.closeSync(fd);
    }
    beforeRename?.(p.target);
    if (p.checkDir) {
      // The folder must still be the one checked (a parent swapped for a link meanwhile is refused).
      const now = fs.statSync(p.dir);
      if (now.ino !== p.dirId.ino || now.dev !== p.dirId.dev || (p.root !== undefined ? freshRealPath(p.root, p.dir) : resolveRealPath(p.dir)) !== p.dir) {
        throw new WaymarkError('conflict', `The folder of ${p.file} was replaced while Waymark was writing; nothing was changed. Check for symbolic links and retry.`, p.file);
      }
    }
    // rename() replaces the directory entry itself: a last component swapped for a link is
    // replaced, never followed.
    fs.renameSync(p.tmp, p.target);
  } catch (e) {
    abortAtomicWrite(p);
    if (WaymarkError.is(e)) throw e;
    throw ioError(e, p.file, 'write');
  }
}

/** Removes a prepared temp file that will not be renamed (the target is untouched). */
export function abortAtomicWrite(p: PreparedWrite): void {
  if (p.fd !== undefined) {
    try {
      fs.closeSync(p.fd);
    } catch {
      // already failing; the original error is the one to report
    }
    p.fd = undefined;
  }
  try {
    fs.unlinkSync(p.tmp);
  } catch {
    // temp file was never created or is already gone
  }
}

/**
 * One flush of a round (below): the same fsync, asked on the thread pool (`run`) or on this thread
 * (`runSync`), with the same answer: a folder that cannot be opened or flushed is skipped (as
 * fsyncDir), a file that cannot be is an error. A descriptor it opened is closed either way.
 */
export interface Flush {
  run(): Promise<void>;
  runSync(): void;
}

/**
 * The flush of an open descriptor (the caller closes it); `data`: fdatasync (a file whose size and
 * name are unchanged); `verb`: what its error says could not be done to `file`.
 */
export function fdFlush(fd: number, file: string, data = false, verb = 'flush'): Flush {
  return {
    run: () => new Promise((resolve, reject) => (data ? fs.fdatasync : fs.fsync)(fd, (e) => (e ? reject(ioError(e, file, verb)) : resolve()))),
    runSync: () => {
      try {
        (data ? fs.fdatasyncSync : fs.fsyncSync)(fd);
      } catch (e) {
        throw ioError(e, file, verb);
      }
    },
  };
}

/**
 * The flush of a file or folder by its name, opened now: a folder that cannot be opened or flushed
 * (some network or overlay file systems) is skipped, as fsyncDir does; a file that cannot be is an error.
 */
export function pathFlush(p: string, kind: 'file' | 'dir'): Flush {
  let fd: number;
  try {
    fd = fs.openSync(p, kind === 'dir' ? fs.constants.O_RDONLY | (fs.constants.O_DIRECTORY ?? 0) : fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0) | (fs.constants.O_NONBLOCK ?? 0));
  } catch (e) {
    if (kind === 'dir') return { run: () => Promise.resolve(), runSync: () => undefined };
    const err = ioError(e, p, 'flush');
    return { run: () => Promise.reject(err), runSync: () => { throw err; } };
  }
  return {
    run: () =>
      new Promise((resolve, reject) =>
        fs.fsync(fd, (e) => {
          fs.closeSync(fd);
          if (e && kind === 'file') reject(ioError(e, p, 'flush'));
          else resolve();
        }),
      ),
    runSync: () => {
      try {
        fs.fsyncSync(fd);
      } catch (e) {
        if (kind === 'file') throw ioError(e, p, 'flush');
      } finally {
        fs.closeSync(fd);
      }
    },
  };
}

/** The flush of a prepared temp file's bytes (an error says the file could not be written); undefined when it needs none. */
export function preparedFlush(p: PreparedWrite): Flush | undefined {
  return p.durable && p.fd !== undefined ? fdFlush(p.fd, p.file, false, 'write') : undefined;
}

/**
 * A round of flushes made together: every one but the last handed to the thread pool, the last
 * asked on this thread meanwhile, and `during` (work that needs no flush of this round) run after
 * the hand-offs, before the last. The disk serves them at once as before; what is saved is a
 * hand-off: each costs this thread a wake-up of a pool thread and, later, the event loop's turn to
 * learn it finished (futex, epoll and eventfd calls), which on a virtual machine are slow system
 * calls (docs/measurements.md, session 39), while this thread would only wait for the round anyway.
 * Fails as Promise.all would: with the first error, the pool's flushes still settling on their own.
 */
export async function flushRound(flushes: readonly Flush[], during?: () => Promise<void>): Promise<void> {
  const n = flushes.length;
  if (n === 0) {
    if (during) await during();
    return;
  }
  const pooled: Promise<void>[] = [];
  for (let i = 0; i < n - 1; i++) pooled.push(flushes[i].run());
  // A rejection of a pooled flush is handled by the Promise.all below, even when this thread's throws first.
  const all = Promise.all(pooled);
  all.catch(() => undefined);
  if (during) await during();
  flushes[n - 1].runSync();
  await all;
}

/** Best effort: make the rename durable. Some file systems refuse to fsync a directory. */
function fsyncDir(dir: string): void {
  let fd: number | undefined;
  try {
    fd = fs.openSync(dir, 'r');
    fs.fsyncSync(fd);
  } catch {
    // not supported here (e.g. some network/overlay file systems); the rename itself is atomic
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/** The pid in a temp file name `.<name>.<pid>.<rand>.waymark-tmp` (names may hold dots). */
function tempOwner(name: string): number | undefined {
  if (!name.endsWith('.waymark-tmp')) return undefined;
  const parts = name.split('.');
  const pid = Number(parts[parts.length - 3]);
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

/**
 * Removes temp files a killed writer left beside `file` (`.<name>.<pid>.<rand>.waymark-tmp`
 * whose pid is not alive). Called when a stale lock was broken: only a writer that died
 * holding the lock can leave one. Returns the removed paths.
 */
export function removeStaleTemps(file: string): string[] {
  const prefix = `.${path.basename(file)}.`;
  return sweepStaleTemps(path.dirname(file), (name) => name.startsWith(prefix));
}

/**
 * Removes every temp file of a dead writer in `dir` (gate files, memory files, checkpoints,
 * leases...: anything written with writeFileAtomic). A live writer's temp file is never touched.
 */
export function sweepStaleTemps(dir: string, filter: (name: string) => boolean = () => true): string[] {
  return sweepDeadOwners(dir, (name) => (filter(name) ? tempOwner(name) : undefined));
}

/**
 * Adds `suffix` at the end of `target` (a real path inside the workspace, an existing regular
 * file) in place, when the file still holds exactly `before`: the bytes it owns are the ones
 * after `before`, nothing before them is written. No temp file, no rename, no new inode: for a
 * file only ever added to (memory's cold file), where a rewrite would copy every earlier line.
 * `check` runs on the open file right before the write (the lock still held). The file's bytes
 * are compared through the descriptor written to, and that descriptor is proved to be the file
 * at `target` (same device and inode) in a folder that is still its own real path; a file with
 * other hard links gets its own copy first (safePath.ts unshareLinked), so no other name of it
 * changes. Returns the
 * open descriptor (not flushed: the caller fsyncs it with the change's other files, then closes it).
 * Throws WaymarkError('conflict') when the file is not `before` any more, nothing written.
 * `before` is the text, or the very bytes that are its UTF-8 encoding (when the caller has them).
 */
export function appendInPlace(target: string, before: string | Buffer, suffix: string, check?: () => void): number {
  let fd: number;
  try {
    fd = fs.openSync(target, fs.constants.O_RDWR | (fs.constants.O_NOFOLLOW ?? 0) | (fs.constants.O_NONBLOCK ?? 0));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT' || (e as NodeJS.ErrnoException).code === 'ELOOP') throw appendConflict(target);
    throw ioError(e, target, 'write');
  }
  try {
    check?.();
    const st = fs.fstatSync(fd);
    const old = typeof before === 'string' ? Buffer.from(before, 'utf8') : before;
    if (!st.isFile()) throw notRegularError(target, st, 'memory');
    if (st.size !== old.length) throw appendConflict(target);
    const now = Buffer.allocUnsafe(old.length);
    let got = 0;
    while (got < old.length) {
      const n = fs.readSync(fd, now, got, old.length - got, got);
      if (n === 0) break;
      got += n;
    }
    if (got !== old.length || !now.equals(old)) throw appendConflict(target);
    const dir = path.dirname(target);
    const named = fs.lstatSync(target);
    if (named.ino !== st.ino || named.dev !== st.dev || resolveRealPath(dir) !== dir) {
      throw new WaymarkError('conflict', `The folder of ${target} was replaced while Waymark was writing; nothing was changed. Check for symbolic links and retry.`, target);
    }
    if (st.nlink > 1) {
      // Another name of this file (perhaps outside the workspace) must not see the bytes added:
      // the name gets its own copy of `before` first, and the copy is added to.
      const own = fd;
      fd = -1; // unshareLinked closes it, whatever happens
      fd = unshareLinked(target, { fd: own, st }, fs.constants.O_RDWR, 'file').fd;
    }
    const add = Buffer.from(suffix, 'utf8');
    let put = 0;
    try {
      while (put < add.length) put += fs.writeSync(fd, add, put, add.length - put, old.length + put);
    } catch (e) {
      // Disk full, say: the bytes added so far are taken back, the file is `before` again.
      try {
        fs.ftruncateSync(fd, old.length);
      } catch {
        // the caller's roll-back writes `before` again
      }
      throw e;
    }
    return fd;
  } catch (e) {
    if (fd >= 0) fs.closeSync(fd);
    if (WaymarkError.is(e)) throw e;
    throw ioError(e, target, 'write');
  }
}

function appendConflict(target: string): WaymarkError {
  return new WaymarkError('conflict', `${target} changed on disk while Waymark was adding to it (another writer or an editor); nothing was written. Re-read it and retry.`, target);
}
