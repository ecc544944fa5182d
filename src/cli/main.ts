import { runCli } from './framework';
import { readCommands } from './readCommands';
import { writeCommands } from './writeCommands';
import { memoryCommands } from './memoryCommands';
import { protocolCommands } from './protocolCommands';
import { mcpCommand } from './mcpCommand';

const commands = [...readCommands, ...writeCommands, ...protocolCommands, ...memoryCommands, mcpCommand];

runCli(commands, process.argv.slice(2), {
  cwd: process.cwd(),
  stdout: (t) => process.stdout.write(t),
  stderr: (t) => process.stderr.write(t),
}).then(
  (code) => {
    // Each verb closes the core it made (and with it any memory database it opened).
    process.exitCode = code;
  },
  (e) => {
    process.stderr.write(`waymark: ${String(e)}\n`);
    process.exitCode = 2;
  },
);
