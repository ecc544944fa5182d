import * as fs from 'node:fs';
import { closeAsync, fstatAsync, openAsync, readFileAsync } from './asyncFs';

/** How many leading bytes encodingRefusal looks at: a file's verdict never needs more of it. */
export const ENCODING_SNIFF_BYTES = 8192;

/**
 * Why bytes cannot be a workflow file's text, or undefined when they can: UTF-16 (a byte-order
 * mark) or binary (a NUL byte in the first 8 KiB). The one answer for validate and every write.
 */
export function encodingRefusal(buf: Uint8Array): { reason: 'utf16' | 'binary'; message: string } | undefined {
  if (buf.length >= 2 && ((buf[0] === 0xff && buf[1] === 0xfe) || (buf[0] === 0xfe && buf[1] === 0xff))) {
    return { reason: 'utf16', message: 'UTF-16 text; Waymark reads UTF-8 only. Save it as UTF-8 (a UTF-8 BOM is fine), then retry' };
  }
  const n = Math.min(buf.length, ENCODING_SNIFF_BYTES);
  // Buffer's indexOf is memchr: a loop over 8 KiB in JavaScript cost more than reading the file.
  // A Buffer no longer than the window is searched as it is: a view made for it cost a cold scan
  // more than the search (1.5 % of its main thread's profile, 29 Nov, session 23).
  const head = Buffer.isBuffer(buf) ? (n === buf.length ? buf : buf.subarray(0, n)) : Buffer.from(buf.buffer, buf.byteOffset, n);
  if (head.indexOf(0) >= 0) return { reason: 'binary', message: 'binary: it holds NUL bytes (it looks binary); it is not a workflow file' };
  return undefined;
}

/** Whether the bytes open with a frontmatter fence (`---`, after a UTF-8 byte-order mark if any). */
export function opensWithFence(buf: Uint8Array): boolean {
  const off = buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf ? 3 : 0;
  return buf[off] === 0x2d && buf[off + 1] === 0x2d && buf[off + 2] === 0x2d;
}

/**
 * True when the first `length` bytes of `buf` (a whole file) are what the scan's read of the file
 * would judge "no frontmatter" (scan.ts judgeBytes): its head (the first ENCODING_SNIFF_BYTES)
 * passes encodingRefusal and opens with no fence.
 */
export function plainHead(buf: Buffer, length: number): boolean {
  const head = buf.subarray(0, Math.min(length, ENCODING_SNIFF_BYTES));
  return !encodingRefusal(head) && !opensWithFence(head);
}

/** Thrown (with `code: 'ENOTREG'`) when a path is a FIFO, socket, device or directory. */
export class NotRegularFileError extends Error {
  readonly code = 'ENOTREG';
  constructor(readonly file: string) {
    super(`${file} is not a regular file (a pipe, socket, device or folder)`);
  }
}

// O_NONBLOCK: opening a FIFO with no writer returns at once instead of blocking forever; the
// fstat that follows then refuses it before a single byte is read.
const FLAGS = fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0);

/**
 * Reads a regular file, never a FIFO/socket/device (which could hang the process). Throws the
 * usual fs errors (ENOENT, EACCES, EISDIR...) or NotRegularFileError; `maxBytes` caps the read.
 */
export function readRegularFileSync(file: string, maxBytes = Infinity): Buffer {
  const fd = fs.openSync(file, FLAGS);
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) throw new NotRegularFileError(file);
    if (st.size > maxBytes) throw Object.assign(new Error(`${file} is ${st.size} bytes, over the ${maxBytes}-byte limit`), { code: 'EFBIG' });
    return readToEnd(fd, st.size);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * The bytes of an open regular file of `size` bytes (its fstat, already made), read as
 * readFileSync(fd) reads them, without the second fstat it makes: up to `size` bytes (fewer when
 * it shrank meanwhile); a size of 0 (an empty file, or one that does not report its size) is read
 * to its end.
 */
export function readToEnd(fd: number, size: number): Buffer {
  if (size === 0) return fs.readFileSync(fd);
  const buf = Buffer.allocUnsafe(size);
  let len = 0;
  while (len < size) {
    const n = fs.readSync(fd, buf, len, size - len, null);
    if (n === 0) break;
    len += n;
  }
  return len === size ? buf : buf.subarray(0, len);
}

/** Async form of readRegularFileSync, as UTF-8 text. */
export async function readRegularFile(file: string, maxBytes = Infinity): Promise<string> {
  const fd = await openAsync(file, FLAGS);
  try {
    const st = await fstatAsync(fd);
    if (!st.isFile()) throw new NotRegularFileError(file);
    if (st.size > maxBytes) throw Object.assign(new Error(`${file} is ${st.size} bytes, over the ${maxBytes}-byte limit`), { code: 'EFBIG' });
    return (await readFileAsync(fd)).toString('utf8');
  } finally {
    await closeAsync(fd);
  }
}

/**
 * A regular file's UTF-8 text, or undefined when it is missing, not a regular file (never opened
 * for reading if a FIFO), over `maxBytes` or unreadable: for optional inputs (configs, ledgers).
 */
export function readTextIfRegular(file: string, maxBytes = Infinity): string | undefined {
  try {
    return readRegularFileSync(file, maxBytes).toString('utf8');
  } catch {
    return undefined;
  }
}

/** True when `p` is a directory (through symlinks); false when missing or unreadable. */
export function isDirectory(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** True when `p` is a regular file (through symlinks); false when missing or unreadable. */
export function isRegularFile(p: string): boolean {
  try {
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}
