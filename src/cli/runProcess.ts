import * as fs from 'node:fs';
import { runCli, type CliCommand } from './framework';
import { cwdProblem } from './cwd';

/**
 * A writer to file descriptor 1 or 2 with the write(2) system call, as `process.stdout` writes to
 * a file, pipe or terminal on Linux and macOS (synchronously) but without creating the stream: the
 * first touch of `process.stdout` builds a stream and, for a pipe (an agent reading the answer),
 * loads `net`, a few milliseconds of a one-file verb's start. `closed` is called once when the
 * reader has gone (EPIPE). A descriptor that would block (left non-blocking by whoever opened it)
 * or any other failure hands this and every later write to the stream, which copes with both.
 */
function fdWriter(fd: 1 | 2, stream: () => NodeJS.WriteStream, closed: () => void): (text: string) => void {
  let viaStream = process.platform === 'win32';
  return (text) => {
    if (!viaStream) {
      const buf = Buffer.from(text, 'utf8');
      let off = 0;
      try {
        while (off < buf.length) off += fs.writeSync(fd, buf, off, buf.length - off);
        return;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'EPIPE') return closed();
        viaStream = true;
        text = buf.subarray(off).toString('utf8');
      }
    }
    stream().write(text);
  };
}

/**
 * Runs one command line as the process: `commands` are the verbs this bundle holds, output goes to
 * stdout and stderr, the exit code to `process.exitCode`. Every CLI bundle's entry ends here.
 */
export function runProcess(commands: CliCommand[], argv: string[]): void {
  const noCwd = cwdProblem();
  if (noCwd) {
    process.stderr.write(`waymark: ${noCwd}\n`);
    process.exitCode = 2;
    return;
  }
  // A reader that goes away (`waymark status . | head`) is not an error: stop writing, let the
  // command finish what it was doing (a write is never cut short), and exit with its own code.
  const outputClosed = new AbortController();
  let stderrClosed = false;
  const closeStdout = () => outputClosed.abort();
  const closeStderr = () => {
    stderrClosed = true;
  };
  // The streams, only once a write needs one (see fdWriter).
  let stdoutStream: NodeJS.WriteStream | undefined;
  const stdout = () => {
    if (stdoutStream) return stdoutStream;
    process.stdout.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code === 'EPIPE' || e.code === 'ERR_STREAM_DESTROYED') closeStdout();
      else process.exitCode = 2;
    });
    return (stdoutStream = process.stdout);
  };
  let stderrStream: NodeJS.WriteStream | undefined;
  const stderr = () => {
    if (stderrStream) return stderrStream;
    process.stderr.on('error', closeStderr);
    return (stderrStream = process.stderr);
  };
  const writeOut = fdWriter(1, stdout, closeStdout);
  const writeErr = fdWriter(2, stderr, closeStderr);
  runCli(commands, argv, {
    cwd: process.cwd(),
    stdout: (t) => {
      if (!outputClosed.signal.aborted) writeOut(t);
    },
    stderr: (t) => {
      if (!stderrClosed) writeErr(t);
    },
    outputClosed: outputClosed.signal,
  }).then(
    (code) => {
      // Each verb closes the core it made (and with it any memory database it opened).
      process.exitCode = code;
    },
    (e) => {
      if (!stderrClosed) writeErr(`waymark: ${String(e)}\n`);
      process.exitCode = 2;
    },
  );
}
