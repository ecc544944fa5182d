import * as fs from 'node:fs';
import * as path from 'node:path';
import * as crypto from 'node:crypto';
import { WaymarkError, errorMessage } from '../errors';
import { pidAlive } from './processes';

export interface AtomicWriteOptions {
  /** File mode for a new file (an existing file keeps its own). Default 0o644 (less umask). */
  mode?: number;
  /** Refuse to create the file when it does not exist. */
  mustExist?: boolean;
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
 * An existing file keeps its mode. Symlinks are followed (the link's target is replaced).
 * On failure the temp file is removed and a WaymarkError('io') says what to do.
 */
export function writeFileAtomic(file: string, data: string | Uint8Array, options: AtomicWriteOptions = {}): void {
  let target = file;
  let mode = options.mode ?? 0o644;
  try {
    target = fs.realpathSync(file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw ioError(e, file, 'write');
    if (options.mustExist) throw new WaymarkError('unreadable', `${file} no longer exists (deleted or moved since it was read); rescan and retry.`, file);
  }
  try {
    const st = fs.statSync(target);
    if (st.isDirectory()) throw ioError(Object.assign(new Error('is a directory'), { code: 'EISDIR' }), file, 'write');
    mode = st.mode & 0o7777;
  } catch (e) {
    if (WaymarkError.is(e)) throw e;
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw ioError(e, file, 'write');
  }
  const dir = path.dirname(target);
  const tmp = path.join(dir, `.${path.basename(target)}.${process.pid}.${crypto.randomBytes(4).toString('hex')}.waymark-tmp`);
  let fd: number | undefined;
  try {
    fd = fs.openSync(tmp, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL, mode);
    const buf = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    let off = 0;
    while (off < buf.length) off += fs.writeSync(fd, buf, off, buf.length - off);
    fs.fchmodSync(fd, mode);
    fs.fsyncSync(fd);
    fs.closeSync(fd);
    fd = undefined;
    fs.renameSync(tmp, target);
  } catch (e) {
    if (fd !== undefined) {
      try {
        fs.closeSync(fd);
      } catch {
        // already failing; the original error is the one to report
      }
    }
    try {
      fs.unlinkSync(tmp);
    } catch {
      // temp file was never created or is already gone
    }
    if (WaymarkError.is(e)) throw e;
    throw ioError(e, file, 'write');
  }
  fsyncDir(dir);
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

/**
 * Removes temp files a killed writer left beside `file` (`.<name>.<pid>.<rand>.waymark-tmp`
 * whose pid is not alive). Called when a stale lock was broken: only a writer that died
 * holding the lock can leave one. Returns the removed paths.
 */
export function removeStaleTemps(file: string): string[] {
  const dir = path.dirname(file);
  const prefix = `.${path.basename(file)}.`;
  const removed: string[] = [];
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return removed;
  }
  for (const name of names) {
    if (!name.startsWith(prefix) || !name.endsWith('.waymark-tmp')) continue;
    const pid = Number(name.slice(prefix.length).split('.')[0]);
    if (!Number.isInteger(pid) || pidAlive(pid)) continue;
    try {
      fs.unlinkSync(path.join(dir, name));
      removed.push(path.join(dir, name));
    } catch {
      // raced with another cleaner; nothing to do
    }
  }
  return removed;
}

