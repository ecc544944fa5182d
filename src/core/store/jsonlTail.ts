/**
 * The end of an append-only JSONL file (history, the events log, the outbox): finding a line torn
 * by a crash, and reading whole lines backwards in growing windows, so that the cost of an append
 * does not grow with the length of the file. One implementation for every log of the core.
 */
import * as fs from 'node:fs';

const WINDOW = 64 * 1024;
const FIRST_WINDOW = 4096;

/**
 * When the file does not end in a newline, its last line was cut by a crash: where the last whole
 * line ends (`cut`) and the torn bytes after it. Undefined when the file ends cleanly (or is empty).
 * The caller keeps the torn bytes aside and truncates the file at `cut`.
 */
export function tornTail(fd: number, size: number): { cut: number; torn: Buffer } | undefined {
  if (size === 0) return undefined;
  const last = Buffer.alloc(1);
  fs.readSync(fd, last, 0, 1, size - 1);
  if (last[0] === 0x0a) return undefined;
  // Find the last newline, however long the torn line is.
  let cut = 0;
  for (let pos = size; pos > 0; ) {
    const start = Math.max(0, pos - WINDOW);
    const buf = Buffer.alloc(pos - start);
    fs.readSync(fd, buf, 0, buf.length, start);
    const i = buf.lastIndexOf(0x0a);
    if (i >= 0) {
      cut = start + i + 1;
      break;
    }
    pos = start;
  }
  const torn = Buffer.alloc(size - cut);
  fs.readSync(fd, torn, 0, torn.length, cut);
  return { cut, torn };
}

/**
 * Offers the whole, non-blank lines before `end` to `pick`, last first, until it returns a value
 * (returned) or the start of the file is reached (undefined). The window (4 KiB first) grows fourfold when no
 * line in it answers (one line can be longer than a window); a window that does not start at 0
 * may begin mid-line, so its first piece is never offered. A line may be offered again after the
 * window grows: `pick` must not count lines.
 */
export function findFromEnd<T>(fd: number, end: number, pick: (line: string) => T | undefined): T | undefined {
  // The first window holds a few lines (the last one usually answers): a long history is not read
  // and split 64 KiB at a time on every append.
  for (let window = FIRST_WINDOW; ; window *= 4) {
    const start = Math.max(0, end - window);
    const buf = Buffer.alloc(end - start);
    fs.readSync(fd, buf, 0, buf.length, start);
    // Line by line from the end, each decoded only when reached (the last usually answers): a line
    // break byte is never part of a multi-byte character, so each piece decodes as in the whole.
    for (let stop = buf.length; ; ) {
      const nl = stop > 0 ? buf.lastIndexOf(0x0a, stop - 1) : -1;
      if (nl < 0 && start !== 0) break;
      const line = buf.toString('utf8', nl + 1, stop).trim();
      if (line) {
        const found = pick(line);
        if (found !== undefined) return found;
      }
      if (nl < 0) break;
      stop = nl;
    }
    if (start === 0) return undefined;
  }
}
