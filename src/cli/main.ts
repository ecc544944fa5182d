import { runCli } from './framework';
import { readCommands } from './readCommands';
import { writeCommands } from './writeCommands';
import { memoryCommands } from './memoryCommands';
import { protocolCommands } from './protocolCommands';
import { mcpCommand } from './mcpCommand';
import { sprintCommands } from './sprintCommands';
import { projectCommands } from './projectCommands';
import { hookCommands, provideHookInput } from './hookCommands';
import { gitCommands } from './gitCommands';
import { refCommands } from './refCommands';
import { ticketCommands } from './ticketCommands';
import { treeCommands } from './treeCommands';

const commands = [...readCommands, ...writeCommands, ...protocolCommands, ...memoryCommands, ...sprintCommands, ...projectCommands, ...ticketCommands, ...treeCommands, ...gitCommands, ...refCommands, mcpCommand, ...hookCommands];

/**
 * Runs the full CLI (bundled as cli-main.js; dist/cli.js, the launcher, loads it). `hookInput`:
 * the stdin text the launcher already read for a `hook` verb.
 */
export function main(argv: string[], options: { hookInput?: string } = {}): void {
  if (options.hookInput !== undefined) provideHookInput(options.hookInput);
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

if (require.main === module) main(process.argv.slice(2));
