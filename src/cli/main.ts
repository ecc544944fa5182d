import { runCli } from './framework';
import { readCommands } from './readCommands';
import { writeCommands } from './writeCommands';
import { memoryCommands } from './memoryCommands';
import { protocolCommands } from './protocolCommands';
import { mcpCommand } from './mcpCommand';
import { disposeSharedMemoryServices } from '../core/memory/observer';

const commands = [...readCommands, ...writeCommands, ...protocolCommands, ...memoryCommands, mcpCommand];

runCli(commands, process.argv.slice(2), {
  cwd: process.cwd(),
  stdout: (t) => process.stdout.write(t),
  stderr: (t) => process.stderr.write(t),
}).then(
  async (code) => {
    // Close any memory database a write observer opened (Kuzu must see every result closed).
    await disposeSharedMemoryServices().catch(() => undefined);
    process.exitCode = code;
  },
  (e) => {
    process.stderr.write(`waymark: ${String(e)}\n`);
    process.exitCode = 2;
  },
);
