import { runCli, type CliCommand } from './framework';

/**
 * Runs one command line as the process: `commands` are the verbs this bundle holds, output goes to
 * stdout and stderr, the exit code to `process.exitCode`. Every CLI bundle's entry ends here.
 */
export function runProcess(commands: CliCommand[], argv: string[]): void {
  // A reader that goes away (`waymark status . | head`) is not an error: stop writing, let the
  // command finish what it was doing (a write is never cut short), and exit with its own code.
  const outputClosed = new AbortController();
  let stderrClosed = false;
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE' || e.code === 'ERR_STREAM_DESTROYED') outputClosed.abort();
    else process.exitCode = 2;
  });
  process.stderr.on('error', () => {
    stderrClosed = true;
  });
  runCli(commands, argv, {
    cwd: process.cwd(),
    stdout: (t) => {
      if (!outputClosed.signal.aborted) process.stdout.write(t);
    },
    stderr: (t) => {
      if (!stderrClosed) process.stderr.write(t);
    },
    outputClosed: outputClosed.signal,
  }).then(
    (code) => {
      // Each verb closes the core it made (and with it any memory database it opened).
      process.exitCode = code;
    },
    (e) => {
      if (!stderrClosed) process.stderr.write(`waymark: ${String(e)}\n`);
      process.exitCode = 2;
    },
  );
}
