import * as fs from 'node:fs';
import * as path from 'node:path';
import { WaymarkError } from '../errors';
import { randomHex } from './processes';

/**
 * The one place that decides whether Waymark may write a path: every writer (workflow files,
 * history, gates, locks, journal, events, leases, modes, checkpoints, memory) asks here first.
 *
 * A path is writable when its *real* path (every symbolic link followed, including a dangling
 * last one and `.waymark` itself) lies inside the real path of the workspace folder. A cloned
 * repository can ship `.waymark/history -> /home/me` or a config saying
 * `memory.hotFile: ../../.bashrc`; both are refused, naming the link or the setting.
 *
 * Internal files are opened non-blocking and must be regular files: a FIFO planted at
 * `.waymark/events/events.jsonl` would otherwise hang the process forever.
 */

const O_NONBLOCK = fs.constants.O_NONBLOCK ?? 0;
const O_NOFOLLOW = fs.constants.O_NOFOLLOW ?? 0;

/** A path with an empty, `.` or `..` part, or a trailing `/`: not normalized (the root `/` aside). */
const UNNORMALIZED = /\/\.{0,2}(?:\/|$)/;

/** Both absolute and normalized POSIX paths: a prefix ending at a separator compares them as path.relative would. */
function prefixComparable(dir: string, p: string): boolean {
  return path.sep === '/' && dir.startsWith('/') && p.startsWith('/') && (dir === '/' || !UNNORMALIZED.test(dir)) && !UNNORMALIZED.test(p);
}

/**
 * `rel` (an answer of path.relative) does not leave its folder: `..` and `../x` leave it, a name
 * that only starts with `..` (`..plan.md`, `..docs/`) does not. '' is the folder itself.
 */
export function relStaysInside(rel: string): boolean {
  return rel !== '..' && !rel.startsWith(`..${path.sep}`) && !(path.sep !== '/' && rel.startsWith('../')) && !path.isAbsolute(rel);
}

/**
 * `p` is `dir` or lies under it. Both are absolute and normalized here (path.resolve, realpath),
 * so on POSIX a prefix ending at a separator decides it without path.relative's two resolves (a
 * write asks a dozen times); elsewhere (Windows: any case, either separator) path.relative does.
 */
function isInside(dir: string, p: string): boolean {
  if (prefixComparable(dir, p)) {
    if (p === dir) return true;
    const base = dir.endsWith('/') ? dir : `${dir}/`;
    // Normalized: no `..` part is left, so a first part starting `..` (`..plan.md`) is a name inside.
    return p.startsWith(base);
  }
  return relStaysInside(path.relative(dir, p));
}

/**
 * `p` relative to `dir` when it lies strictly under it (as path.relative spells it), else
 * undefined (the folder itself, or outside). Both absolute; normalized ones take isInside's prefix path.
 */
export function relativeInside(dir: string, p: string): string | undefined {
  if (p === dir || !isInside(dir, p)) return undefined;
  if (prefixComparable(dir, p)) return p.slice(dir.endsWith('/') ? dir.length : dir.length + 1);
  const rel = path.relative(dir, p);
  return rel && relStaysInside(rel) ? rel : undefined;
}

/** `p`'s real path (one native realpath), or `p` resolved when it cannot be resolved (missing, a loop). */
export function realOrResolved(p: string): string {
  try {
    return fs.realpathSync.native(p);
  } catch {
    return path.resolve(p);
  }
}

/**
 * One write resolves the same few real paths dozens of times (the workspace folder for every
 * check, the file and its history file's name, its history line): while a transaction runs
 * (`withRealPathScope`) each is resolved once. Only names are cached: the real path of the
 * workspace folder a check compares with, and the real paths history files and lines are named
 * by. The containment check of a path about to be written (safeWritePath's target, the folder
 * re-checked before a rename, a folder just created) and a lock's name are resolved afresh every
 * time, so a symbolic link planted during the transaction is still refused. A folder swapped for
 * a link after its real path was cached makes a check fail, never pass: the fresh target no longer
 * lies under the cached root. And a check is only as good as the open after it: an append opens
 * by openInsideSync, which proves the descriptor is the file checked (a folder swapped for a link
 * between the check and the open, while transactions overlap or by another process, is refused,
 * not followed); an atomic write re-checks its folder before the rename. The cache is the process's (not per async context: Node 20's
 * AsyncLocalStorage slows every promise once used) and is emptied when no transaction runs.
 */
let openScopes = 0;

/** Runs `fn` (one transaction) with the cache of the real paths that name things (see above). */
export async function withRealPathScope<T>(fn: () => Promise<T>): Promise<T> {
  openScopes++;
  try {
    return await fn();
  } finally {
    if (--openScopes === 0) {
      nativeKnown.clear();
      walkKnown.clear();
    }
  }
}

/**
 * The scope's answers, by the three ways a name is resolved. One resolution serves the others
 * where their answers agree: a path realpath resolved (it exists) has that same real path for
 * the walk (resolveRealPath's first step is that realpath) and for realOrResolved.
 */
const nativeKnown = new Map<string, string>();
const walkKnown = new Map<string, string>();

function remember(m: Map<string, string>, p: string, real: string): void {
  if (m.size >= 256) m.clear(); // writes that keep overlapping never empty it otherwise
  m.set(p, real);
}

function nativeReal(p: string): string {
  if (openScopes === 0) return fs.realpathSync.native(p);
  let real = nativeKnown.get(p);
  if (real === undefined) {
    real = fs.realpathSync.native(p); // a failure (missing, loop) is not cached
    remember(nativeKnown, p, real);
  }
  return real;
}

/**
 * The real path `abs` would be written at, asked afresh (resolveRealPath's answer), for a path
 * under the workspace folder `absRoot` whose real path `realRoot` realpath answered in this
 * transaction: each part below the folder is looked at with one lstat, from `realRoot` down, instead
 * of realpath's one readlink for every part from `/` (the folder's own parts, asked by every check
 * of a change again). A part that is a symbolic link, or that is not a folder where one is needed,
 * takes the whole walk (resolveRealPath), so the answer is the same either way; a missing part
 * ends it (the missing tail is appended to the real path of the deepest part found, as the walk
 * does). Outside a transaction, or for a folder realpath did not answer, it is the whole walk.
 */
function freshReal(absRoot: string, abs: string, missing?: boolean): string {
  const realRoot = openScopes > 0 ? nativeKnown.get(absRoot) : undefined;
  const rel = realRoot !== undefined && prefixComparable(realRoot, abs) ? relativeInside(absRoot, abs) ?? relativeInside(realRoot, abs) : undefined;
  if (rel === undefined) return walkRealPath(abs, missing).real;
  let cur = realRoot!;
  let at = 0;
  while (at <= rel.length) {
    const end = rel.indexOf('/', at);
    const last = end === -1;
    const next = `${cur === '/' ? '' : cur}/${rel.slice(at, last ? undefined : end)}`;
    let st: fs.Stats | undefined;
    try {
      st = fs.lstatSync(next, { throwIfNoEntry: false });
    } catch {
      return walkRealPath(abs, missing).real; // ENOTDIR, EACCES...: the walk says what it is
    }
    if (st === undefined) return last ? next : `${next}/${rel.slice(end + 1)}`;
    if (st.isSymbolicLink() || (!last && !st.isDirectory())) return walkRealPath(abs, missing).real;
    cur = next;
    if (last) break;
    at = end + 1;
  }
  return cur;
}

/** resolveRealPath of `p`, a path under the workspace folder `root`, asked afresh: inside a transaction, part by part below the folder's real path (freshReal). */
export function freshRealPath(root: string, p: string): string {
  const absRoot = path.resolve(root);
  realRootOnce(absRoot);
  return freshReal(absRoot, path.resolve(absRoot, p));
}

/** resolveRealPath of a path that names something (a history file, a history line's file), once per transaction. */
export function realPathOnce(p: string): string {
  const abs = path.resolve(p);
  if (openScopes === 0) return resolveRealPath(abs);
  let real = walkKnown.get(abs) ?? nativeKnown.get(abs);
  if (real === undefined) {
    const found = walkRealPath(abs);
    real = found.real;
    remember(found.direct ? nativeKnown : walkKnown, abs, real);
  }
  return real;
}

/** fs.realpathSync.native (throws when missing), once per transaction: the checks before the locks (the write checks again, afresh). */
export function nativeRealPathOnce(p: string): string {
  return nativeReal(path.resolve(p));
}

/** The real path of the workspace folder `absRoot` (itself when missing), once per transaction. */
function realRootOnce(absRoot: string): string {
  try {
    return nativeReal(absRoot);
  } catch {
    return path.resolve(absRoot);
  }
}

/**
 * The real path `p` would be written at: symlinks followed, a missing tail appended to the real
 * path of its deepest existing ancestor, and a dangling link resolved to the path it names.
 */
export function resolveRealPath(p: string): string {
  return walkRealPath(path.resolve(p)).real;
}

/**
 * resolveRealPath, and whether realpath answered it at once (`direct`: the path exists, no link
 * dangles). `missing`: the caller found no file at `abs` a moment ago (a new history file): when
 * lstat still finds nothing there (not even a dangling link), its folder is resolved instead of
 * asking realpath first, whose failure is a thrown exception (several times the system call).
 * Anything found at `abs` takes the usual way, so the answer is the same either way.
 */
/** Why a path cannot be followed to its real place (a name too long, a folder that may not be searched), as a refusal naming it. */
function unresolvable(p: string, code: string | undefined, e: unknown): WaymarkError {
  const why = code === 'ENAMETOOLONG' ? `its name is longer than the file system allows (${path.basename(p).length} characters in its last part, ${p.length} in all); choose a shorter path`
    : code === 'EACCES' || code === 'EPERM' ? 'a folder on its path may not be searched (permissions); make it readable or work elsewhere'
      : `it cannot be followed (${code ?? (e as Error).message})`;
  return new WaymarkError('usage', `${p}: ${why}. Nothing was changed.`, p);
}

function walkRealPath(abs: string, missing = false): { real: string; direct: boolean } {
  if (missing && fs.lstatSync(abs, { throwIfNoEntry: false }) === undefined) {
    const parent = path.dirname(abs);
    if (parent !== abs) return { real: path.join(walkRealPath(parent).real, path.basename(abs)), direct: false };
  }
  let hops = 0;
  let direct = true;
  const walk = (cur: string): string => {
    try {
      // The C library's realpath: one call, where Node's own lstats every part of the path.
      return fs.realpathSync.native(cur);
    } catch (e) {
      direct = false;
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ELOOP') throw new WaymarkError('usage', `${cur} is a loop of symbolic links; remove it, then retry. Nothing was changed.`, cur);
      // EINVAL: realpath saw a link that was swapped for a file before it read the link (a race
      // with another process): look again, a bounded number of times.
      if (code === 'EINVAL' && ++hops <= 40) return walk(cur);
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw unresolvable(cur, code, e);
    }
    let st: fs.Stats | undefined;
    try {
      st = fs.lstatSync(cur, { throwIfNoEntry: false });
    } catch {
      st = undefined;
    }
    if (st?.isSymbolicLink()) {
      if (++hops > 40) throw new WaymarkError('usage', `${cur} is a loop of symbolic links; remove it, then retry. Nothing was changed.`, cur);
      let to: string;
      try {
        to = fs.readlinkSync(cur);
      } catch {
        return walk(cur); // stopped being a link meanwhile: look again
      }
      return walk(path.resolve(path.dirname(cur), to));
    }
    const parent = path.dirname(cur);
    if (parent === cur) return cur;
    return path.join(walk(parent), path.basename(cur));
  };
  const real = walk(abs);
  return { real, direct };
}

/** The first symbolic link on the way from `root` down to `p` (the one to name in an error). */
function firstLink(root: string, p: string): string | undefined {
  const rel = path.relative(root, p);
  if (/^\.\.(?:[\\/]|$)/.test(rel) || path.isAbsolute(rel)) return undefined;
  let cur = root;
  for (const part of rel.split(path.sep).filter(Boolean)) {
    cur = path.join(cur, part);
    try {
      if (fs.lstatSync(cur).isSymbolicLink()) return cur;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/**
 * Resolves `target` (absolute, or relative to `root`) and returns its real path when that lies
 * inside the real path of `root`; else throws WaymarkError('usage') (exit 2) that names the
 * symbolic link or the setting (`what`, e.g. `memory.hotFile`) responsible. Nothing is created.
 */
export function safeWritePath(root: string, target: string, what?: string, options: { missing?: boolean; resolved?: string } = {}): string {
  const absRoot = path.resolve(root);
  const abs = path.resolve(absRoot, target);
  const realRoot = realRootOnce(absRoot);
  if (!isInside(absRoot, abs) && !isInside(realRoot, abs)) {
    const label = what ? `${what} (${target})` : target;
    throw new WaymarkError(
      'usage',
      `${label} resolves to ${abs}, outside the workspace ${absRoot}; Waymark writes only inside the workspace.${what ? ` Set ${what} to a path inside it (.waymark/config.yaml).` : ''} Nothing was changed.`,
      abs,
      { setting: what, outside: abs },
    );
  }
  // `resolved`: realpath's answer for `abs`, asked by the caller a moment before (the same check's
  // first half, not an earlier change's): not asked again. Being realpath's answer, it is also the
  // name the transaction's later lookups of `abs` would resolve (realPathOnce, nativeRealPathOnce):
  // kept for them, so a change's file is not resolved once more to name its history.
  if (options.resolved !== undefined && openScopes > 0) remember(nativeKnown, abs, options.resolved);
  const real = options.resolved ?? freshReal(absRoot, abs, options.missing);
  if (!isInside(realRoot, real)) {
    const link = firstLink(absRoot, abs) ?? firstLink(realRoot, abs) ?? abs;
    throw new WaymarkError(
      'usage',
      `${link} is a symbolic link leading to ${real}, outside the workspace ${realRoot}; Waymark does not write outside the workspace. Remove the link (or make it a real ${link === abs ? 'file' : 'folder'}), then retry. Nothing was changed.`,
      link,
      { link, outside: real, ...(what ? { setting: what } : {}) },
    );
  }
  return real;
}

/** `mkdir -p` of a folder that was checked with safeWritePath (its real path). */
export function safeMkdir(root: string, dir: string, what?: string): string {
  const real = safeWritePath(root, dir, what);
  // A folder already there (the usual case: locks, events, journal) is one stat; mkdir -p would
  // try to make it first (EEXIST), then stat it.
  if (statOrUndefined(real)?.isDirectory()) return real;
  // Undefined when the folder was there already: nothing was created, so nothing to look at again.
  if (fs.mkdirSync(real, { recursive: true }) === undefined) return real;
  // A link swapped in while the folders were created would be caught here.
  const after = realOrResolved(real);
  if (after !== real) return safeWritePath(root, dir, what);
  return real;
}

function kindOf(st: fs.Stats): string {
  if (st.isDirectory()) return 'a folder';
  if (st.isFIFO()) return 'a named pipe (FIFO)';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  if (st.isSymbolicLink()) return 'a symbolic link';
  return 'not a regular file';
}

/** The error for an internal path that is not a regular file ('io', exit 2: Waymark cannot keep its record there). */
export function notRegularError(file: string, st: fs.Stats, what = 'records'): WaymarkError {
  return new WaymarkError(
    'io',
    `${file} is ${kindOf(st)}, not a regular file; Waymark keeps its ${what} there. Remove it (Waymark recreates it), then retry. Nothing was changed.`,
    file,
    { kind: kindOf(st) },
  );
}

/**
 * Refuses (exit 2) when `file` exists and is not a regular file. Does not follow a last symlink.
 * Returns its lstat when it is a regular file itself (not a link), for a check of the same file
 * right after (assertWritable's `seen`); else undefined.
 */
export function assertRegularOrMissing(file: string, what?: string): fs.Stats | undefined {
  let st: fs.Stats | undefined;
  try {
    st = fs.lstatSync(file, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
  if (!st) return undefined;
  if (st.isSymbolicLink()) {
    try {
      st = fs.statSync(file);
    } catch {
      return undefined; // dangling: safeWritePath judged where it leads
    }
    if (!st.isFile()) throw notRegularError(file, st, what);
    return undefined;
  }
  if (!st.isFile()) throw notRegularError(file, st, what);
  return st;
}

/**
 * Opens an internal file without ever blocking (O_NONBLOCK: a FIFO opens at once) and refuses
 * anything but a regular file. With `noFollow` (writers, on a path from safeWritePath) a last
 * component swapped for a symbolic link since the check is refused instead of followed.
 */
export function openInternalSync(file: string, flags: number, options: { mode?: number; noFollow?: boolean; what?: string } = {}): number {
  const opened = openRegular(file, flags, options);
  return writes(flags) ? unshareLinked(file, opened, flags, options.what).fd : opened.fd;
}

/**
 * A new temp file's path beside `target`, `.<name>.<pid>.<rand>.waymark-tmp`: the name every temp
 * file Waymark writes has, so a killed writer's is swept (atomicWrite.ts sweepStaleTemps).
 */
export function tempPathBeside(target: string): string {
  return path.join(path.dirname(target), `.${path.basename(target)}.${process.pid}.${randomHex(4)}.waymark-tmp`);
}

/** Flags that open a file to change it (an open for reading alone never writes through a link). */
function writes(flags: number): boolean {
  return (flags & (fs.constants.O_WRONLY | fs.constants.O_RDWR | fs.constants.O_TRUNC)) !== 0;
}

/**
 * A file Waymark is about to change in place (an append, a rewrite through the descriptor) that
 * has other hard links: one of them may be a file outside the workspace (`ln
 * ~/.bashrc .waymark/events/events.jsonl` leaves no symbolic link for the real-path check to see),
 * and writing through the descriptor would change it. So the name is given its own copy first
 * (copy, then rename over the name: the other names keep the old bytes, untouched) and the copy
 * is opened instead. `real` is the name the descriptor was proved to be (same device and inode);
 * a name that no longer is that file by the rename is refused, nothing written. Files with one
 * link (the usual case) cost nothing: the fstat was made already.
 */
export function unshareLinked(real: string, opened: { fd: number; st: fs.Stats }, flags: number, what?: string): { fd: number; st: fs.Stats } {
  if (!opened.st.isFile() || opened.st.nlink < 2) return opened;
  // The name atomicWrite's temp files have: a killed writer's copy is swept as theirs are.
  const tmp = tempPathBeside(real);
  let copy: number | undefined;
  try {
    copy = fs.openSync(tmp, fs.constants.O_RDWR | fs.constants.O_CREAT | fs.constants.O_EXCL | O_NOFOLLOW, opened.st.mode & 0o7777);
    const buf = Buffer.allocUnsafe(64 * 1024);
    for (let pos = 0; ; ) {
      const n = fs.readSync(opened.fd, buf, 0, buf.length, pos);
      if (n === 0) break;
      let off = 0;
      while (off < n) off += fs.writeSync(copy, buf, off, n - off, pos + off);
      pos += n;
    }
    fs.fchmodSync(copy, opened.st.mode & 0o7777);
    fs.fsyncSync(copy);
    if (!sameFile(lstatOrUndefined(real), opened.st)) {
      throw new WaymarkError('conflict', `${real} was replaced while Waymark was writing it, nothing was written to it. Retry.`, real, { replaced: true });
    }
    fs.renameSync(tmp, real);
  } catch (e) {
    if (copy !== undefined) fs.closeSync(copy);
    try {
      fs.unlinkSync(tmp);
    } catch {
      // never made, or already renamed
    }
    fs.closeSync(opened.fd);
    if (WaymarkError.is(e)) throw e;
    throw new WaymarkError('io', `Cannot give ${real} (hard-linked to another file) its own copy before writing it: ${(e as Error).message}. Nothing was written to it.`, real, { code: (e as NodeJS.ErrnoException).code });
  }
  fs.closeSync(copy);
  fs.closeSync(opened.fd);
  // The copy, opened the way the caller asked (O_APPEND appends, O_RDWR reads its tail).
  const again = openRegular(real, flags & ~(fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_TRUNC), { noFollow: true, what });
  if (again.st.nlink > 1) {
    fs.closeSync(again.fd);
    throw new WaymarkError('conflict', `${real} was hard-linked again while Waymark was writing it, nothing was written to it. Remove the other links, then retry.`, real, { replaced: true });
  }
  return again;
}

/** openInternalSync, with the descriptor's fstat (the one it makes to refuse a non-regular file). */
function openRegular(file: string, flags: number, options: { mode?: number; noFollow?: boolean; what?: string }): { fd: number; st: fs.Stats } {
  let fd: number;
  try {
    fd = fs.openSync(file, flags | O_NONBLOCK | (options.noFollow ? O_NOFOLLOW : 0), options.mode ?? 0o644);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ELOOP' && options.noFollow) {
      throw new WaymarkError('usage', `${file} became a symbolic link while Waymark was writing it; Waymark does not follow links it did not check. Remove the link, then retry.`, file);
    }
    if (code === 'ENXIO') {
      // O_WRONLY|O_NONBLOCK on a FIFO with no reader.
      throw new WaymarkError('io', `${file} is a named pipe (FIFO), not a regular file; Waymark keeps its ${options.what ?? 'records'} there. Remove it, then retry. Nothing was changed.`, file, { kind: 'fifo' });
    }
    if (code === 'EISDIR') {
      throw new WaymarkError('io', `${file} is a folder, not a regular file; Waymark keeps its ${options.what ?? 'records'} there. Remove it, then retry. Nothing was changed.`, file, { kind: 'folder' });
    }
    throw e;
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) throw notRegularError(file, st, options.what);
    // Writers keep blocking semantics for regular files (O_NONBLOCK has no effect on them anyway).
    return { fd, st };
  } catch (e) {
    fs.closeSync(fd);
    throw e;
  }
}

function statOrUndefined(p: string): fs.Stats | undefined {
  try {
    return fs.statSync(p, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

const sameFile = (a: fs.Stats | undefined, b: fs.Stats | undefined): boolean => !!a && !!b && a.dev === b.dev && a.ino === b.ino;

/**
 * A file's folder proved inside the workspace by its real path (`dir`: safeMkdir's or
 * safeWritePath's answer) right before the open (the same synchronous step: nothing awaited or
 * waited for since, as the full check's realpath is right before its open), and the file's
 * identity taken BEFORE that proof (`seen`: an lstat of the file, by any name of it; undefined
 * when missing): see openInsideSync's `proved`.
 */
export interface ProvedFolder {
  dir: string;
  seen: fs.Stats | undefined;
}

/** The lstat a ProvedFolder's `seen` is (undefined: nothing there). */
export function lstatOrUndefined(p: string): fs.Stats | undefined {
  try {
    return fs.lstatSync(p, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

/**
 * openInsideSync for a regular file in a folder the caller proved: its real path is its name in
 * that folder, no realpath of its own. The same three moments as the full check, in the same
 * order: the file's identity (`seen`), then the real-path proof (the folder's, whose last part is
 * the file itself, not a link: O_NOFOLLOW), then the open, whose descriptor must be that same
 * file; a folder swapped for a link at any one moment shows as another file (or a refused link).
 * Undefined (nothing opened) when the file was not a regular file then, is not named in that
 * folder, or the descriptor is another file: the full check judges it afresh.
 */
function openInProvedFolder(abs: string, flags: number, proved: ProvedFolder): { fd: number; st: fs.Stats; real: string } | undefined {
  const seen = proved.seen;
  if (!seen?.isFile() || path.dirname(abs) !== proved.dir) return undefined;
  let fd: number;
  try {
    fd = fs.openSync(abs, (flags & ~fs.constants.O_CREAT) | O_NONBLOCK | O_NOFOLLOW);
  } catch {
    return undefined; // gone, or a link now: judged afresh
  }
  let st: fs.Stats;
  try {
    st = fs.fstatSync(fd);
  } catch (e) {
    fs.closeSync(fd);
    throw e;
  }
  if (sameFile(st, seen) && st.isFile()) return { fd, st, real: abs };
  fs.closeSync(fd);
  return undefined;
}

/**
 * Opens `file` (absolute, or relative to `root`) to write it, and proves the descriptor is the
 * file the real-path check judged. The check (safeWritePath) and the open are two lookups of the
 * path: a folder on it (`.waymark/history/`) swapped for a link leading outside in between (by
 * another process, or while this process's transactions overlap) would send the bytes there, and
 * O_NOFOLLOW guards only the last component. So the file's identity (device and inode; a new
 * file's folder's) is taken before the check, and the descriptor's (its fstat, already made to
 * refuse a FIFO) must be that same file after the open (a new file's folder, that same folder),
 * else nothing is written: a swap at any one moment is refused. Costs the check's one realpath
 * and one stat (a new file: two); a missing folder is made first. `flags` without O_CREAT: a
 * missing file throws ENOENT. `proved`: the file's folder proved by the caller after it took the
 * file's identity (ProvedFolder): a regular file there needs no realpath of its own. Opened to
 * write, a file with other hard links is given its own copy first (unshareLinked): a link to a
 * file outside the workspace has no real path of its own to refuse.
 */
export function openInsideSync(root: string, file: string, flags: number, options: { what?: string; proved?: ProvedFolder } = {}): { fd: number; st: fs.Stats; real: string } {
  const opened = openProvedInside(root, file, flags, options);
  if (!writes(flags) || opened.st.nlink < 2) return opened;
  return { ...unshareLinked(opened.real, opened, flags, options.what), real: opened.real };
}

function openProvedInside(root: string, file: string, flags: number, options: { what?: string; proved?: ProvedFolder }, followed = false): { fd: number; st: fs.Stats; real: string } {
  const abs = path.resolve(root, file);
  const quick = options.proved && openInProvedFolder(abs, flags, options.proved);
  if (quick) return quick;
  const seen = statOrUndefined(abs);
  let dirSeen: fs.Stats | undefined;
  if (!seen) {
    if (!(flags & fs.constants.O_CREAT)) throw Object.assign(new Error(`ENOENT: no such file, open '${abs}'`), { code: 'ENOENT', path: abs });
    dirSeen = statOrUndefined(path.dirname(abs));
    if (!dirSeen) {
      safeMkdir(root, path.dirname(safeWritePath(root, abs)));
      dirSeen = statOrUndefined(path.dirname(abs));
    }
  }
  const real = safeWritePath(root, abs, undefined, { missing: !seen });
  const { fd, st } = openRegular(real, flags, { noFollow: true, what: options.what });
  if (seen ? sameFile(st, seen) : sameFile(statOrUndefined(path.dirname(real)), dirSeen)) return { fd, st, real };
  fs.closeSync(fd);
  // A new file named by a dangling link lands in the folder the link leads to: judged again as the file it now is.
  if (!seen && !followed && fs.lstatSync(abs, { throwIfNoEntry: false })?.isSymbolicLink()) return openProvedInside(root, real, flags, options, true);
  throw new WaymarkError(
    'conflict',
    `${abs} (or a folder on its path) was replaced while Waymark was writing it, nothing was written to it: Waymark does not follow a symbolic link it did not check. Look for links under .waymark/ (remove any that lead outside the workspace), then retry.`,
    abs,
    { replaced: true },
  );
}

/** Reads an internal file as UTF-8, or undefined when it does not exist. FIFOs, folders: exit 2. */
export function readInternalIfExists(file: string, what?: string): string | undefined {
  // Most files read this way are usually missing (leases, session records): a failed open throws,
  // and the exception costs several times the stat that answers without one (ENOENT only).
  if (fs.statSync(file, { throwIfNoEntry: false }) === undefined) return undefined;
  let fd: number;
  try {
    fd = openInternalSync(file, fs.constants.O_RDONLY, { what });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
  try {
    return fs.readFileSync(fd, 'utf8');
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Appends `data` to an internal file inside `root` in one write() on an O_APPEND descriptor:
 * opened by openInsideSync (checked by its real path, the descriptor proved to be the file
 * checked), a regular file. Creates the folder when missing.
 */
export function safeAppend(root: string, file: string, data: string | Buffer, options: { what?: string; fsync?: boolean } = {}): void {
  const { fd } = openInsideSync(root, file, fs.constants.O_WRONLY | fs.constants.O_APPEND | fs.constants.O_CREAT, { what: options.what });
  try {
    const buf = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    let off = 0;
    while (off < buf.length) off += fs.writeSync(fd, buf, off, buf.length - off);
    if (options.fsync) fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Refuses (exit 2, 'io') when a new file could not be created in `dir` or an existing `file`
 * could not be written: checked before a change so that a change is never half done.
 */
export function assertWritable(file: string, what = 'file', options: { display?: string; newName?: boolean; seen?: fs.Stats } = {}): void {
  // `newName`: `file` is a name made up to ask whether a new file could be created beside it
  // (a probe): its folder is judged from the start, with no stat of a name that is not there.
  // `seen`: the caller's stat of what is judged (the folder for a probe, else `file`), taken a
  // moment before in the same synchronous step (no await between): not taken again.
  let target = options.newName ? path.dirname(file) : file;
  let found: fs.Stats | undefined;
  let seen = options.seen;
  for (;;) {
    let missing = false;
    try {
      // A missing name (a probe name, a new file) is answered without access()'s exception.
      found = seen ?? fs.statSync(target, { throwIfNoEntry: false });
      missing = found === undefined;
    } catch {
      found = undefined;
      missing = false; // access() below says why
    }
    seen = undefined;
    if (missing) {
      const up = path.dirname(target);
      if (up === target) return;
      target = up;
      continue;
    }
    try {
      fs.accessSync(target, fs.constants.W_OK);
      break;
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') {
        const up = path.dirname(target);
        if (up === target) return;
        target = up;
        found = undefined;
        continue;
      }
      const shown = options.display ?? file;
      throw new WaymarkError(
        'io',
        `Cannot write ${what} ${shown}: ${target === file ? 'it' : `the folder ${target}`} is not writable; make it writable (chmod u+w ${target}) and retry (${code}). Nothing was changed.`,
        shown,
        { code, notWritable: target },
      );
    }
  }
  // Root ignores permission bits on access(); a read-only file system still shows as EROFS above.
  if (target !== file) {
    try {
      // The stat that found it, just before access(); stat again only when that one failed.
      const st = found ?? fs.statSync(target);
      if (!st.isDirectory()) throw new WaymarkError('io', `Cannot write ${what} ${file}: ${target} is not a folder. Nothing was changed.`, file);
    } catch (e) {
      if (WaymarkError.is(e)) throw e;
    }
  }
}

/**
 * Refuses (exit 2, `readOnly`) a file that exists without its owner's write bit: people chmod
 * 0444 to freeze a file, and every write of Waymark honours that, whatever writes it.
 * `target` is the real path checked; `abs` the name shown.
 */
export function assertNotReadOnly(abs: string, target: string = abs): void {
  let mode: number | undefined;
  try {
    mode = fs.statSync(target).mode;
  } catch {
    mode = undefined; // a new file: its folder is checked by assertWritable
  }
  if (mode !== undefined && (mode & 0o200) === 0) {
    throw new WaymarkError('io', `${abs} is read-only; chmod u+w ${abs} to allow Waymark to write it. Nothing was changed.`, abs, { readOnly: true });
  }
}
