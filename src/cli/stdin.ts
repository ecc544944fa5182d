/**
 * Reading a hook event from stdin, the way agents send it: to its end, however late it arrives
 * and however large it is. Node built-ins only (the launcher's fast path uses it).
 *
 * Not `fs.readFileSync(0)`: once `process.stdin` has been touched the pipe is non-blocking, and a
 * synchronous read fails with EAGAIN when the event comes late or is cut at the pipe buffer.
 */
import * as fs from 'node:fs';

/** More than any hook event an agent sends; past it the input is refused, not buffered. */
export const MAX_STDIN_BYTES = 64 * 1024 * 1024;

/** True when stdin is a terminal (the hook was run by hand). Does not open the stream. */
export function stdinIsTerminal(): boolean {
  // Only a character device can be a terminal: a pipe or a file, the way agents send events, is
  // answered without loading tty (which loads net and streams: milliseconds of every hook).
  try {
    if (!fs.fstatSync(0).isCharacterDevice()) return false;
  } catch {
    return false;
  }
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- see above
  return (require('node:tty') as typeof import('node:tty')).isatty(0);
}

/**
 * How long a hook run with --fail-closed waits for its event to end. Agents write it at once and
 * close stdin; the hooks are installed with a 30 s timeout, after which the agent kills the hook and
 * goes on as if it had failed open. A stdin left open past this is answered as unreadable, that is
 * refused, with time to spare. `WAYMARK_HOOK_STDIN_MS` sets it (a slow machine, tests).
 */
export function hookStdinDeadlineMs(env: NodeJS.ProcessEnv = process.env): number {
  const n = Number(env.WAYMARK_HOOK_STDIN_MS);
  return Number.isFinite(n) && n > 0 ? n : 10_000;
}

/** stdin did not end within the deadline. */
export class StdinDeadlineError extends Error {
  constructor(ms: number, bytes: number) {
    super(`stdin was still open after ${ms / 1000} s (${bytes} bytes received); the agent sends one event and closes it`);
  }
}

/**
 * All of stdin as UTF-8 text; rejects with the read error (EISDIR, too large...), or with a
 * StdinDeadlineError when it has not ended within `deadlineMs`. With a deadline, a pipe or socket is
 * read through process.stdin: a read of fd 0 in node's thread pool cannot be cancelled, and the
 * process could not exit while it waits (node joins the pool's threads at exit). That stream costs
 * a few milliseconds (it loads net), so only a hook that must fail closed asks for it.
 */
export function readStdinText(deadlineMs?: number): Promise<string> {
  if (deadlineMs === undefined) return readInto();
  const st = stdinKind();
  if (st instanceof Error) return Promise.reject(st);
  if (!st.isFIFO() && !st.isSocket()) return readInto();
  return readStream([], 0, deadlineMs);
}

function stdinKind(): fs.Stats | Error {
  // Node reads stdin of a kind it does not know (a folder) as empty: that is unreadable, not "".
  let st: fs.Stats;
  try {
    st = fs.fstatSync(0);
  } catch (e) {
    return e instanceof Error ? e : new Error(String(e));
  }
  if (!st.isFIFO() && !st.isSocket() && !st.isFile() && !st.isCharacterDevice()) {
    return new Error(`stdin is ${st.isDirectory() ? 'a directory (EISDIR)' : 'not a pipe, file or terminal'}`);
  }
  return st;
}

/** All of stdin, read from fd 0 in node's thread pool. */
function readInto(): Promise<string> {
  const st = stdinKind();
  if (st instanceof Error) return Promise.reject(st);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    // fs.read on fd 0 first: process.stdin would load net or fs streams (milliseconds of every hook)
    // and make the pipe non-blocking. A pipe the agent made non-blocking answers EAGAIN: the rest
    // is read from process.stdin, after what was read already.
    const next = () =>
      fs.read(0, Buffer.allocUnsafe(64 * 1024), 0, 64 * 1024, null, (e, n, buf) => {
        if (e && (e.code === 'EAGAIN' || e.code === 'EWOULDBLOCK')) readStream(chunks, size).then(resolve, reject);
        else if (e && e.code !== 'EOF') reject(e);
        else if (e || n === 0) resolve(Buffer.concat(chunks).toString('utf8'));
        else if ((size += n) > MAX_STDIN_BYTES) reject(tooLarge());
        else {
          chunks.push(buf.subarray(0, n));
          next();
        }
      });
    next();
  });
}

const tooLarge = () => new Error(`the input is larger than ${MAX_STDIN_BYTES / 1024 / 1024} MB`);

/** The rest of stdin through process.stdin, after `chunks` (`size` bytes) read already; given up (the stream destroyed) after `deadlineMs`. */
function readStream(chunks: Buffer[], size: number, deadlineMs?: number): Promise<string> {
  return new Promise((resolve, reject) => {
    let done = false;
    const stdin = process.stdin;
    const timer = deadlineMs === undefined ? undefined : setTimeout(() => finish(new StdinDeadlineError(deadlineMs, size)), deadlineMs);
    const finish = (e: Error | undefined) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      stdin.removeAllListeners('data');
      if (e) {
        stdin.destroy();
        reject(e);
      } else resolve(Buffer.concat(chunks).toString('utf8'));
    };
    stdin.on('data', (c: Buffer | string) => {
      const b = typeof c === 'string' ? Buffer.from(c, 'utf8') : c;
      size += b.length;
      if (size > MAX_STDIN_BYTES) finish(tooLarge());
      else chunks.push(b);
    });
    stdin.once('end', () => finish(undefined));
    stdin.once('error', (e) => finish(e));
  });
}
