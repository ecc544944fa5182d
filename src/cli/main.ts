import { runCli } from './framework';
import { readCommands } from './readCommands';
import { writeCommands } from './writeCommands';
import { memoryCommands } from './memoryCommands';
import { protocolCommands } from './protocolCommands';
import { mcpCommand } from './mcpCommand';
import { hookCommands, provideHookInput } from './hookCommands';
import { disposeSharedMemoryServices } from '../core/memory/observer';

const commands = [...readCommands, ...writeCommands, ...protocolCommands, ...memoryCommands, mcpCommand, ...hookCommands];

/** Runs the full CLI. `hookInput`: stdin already read by the launcher's fast path (launch.ts). */
export function main(argv: string[], options: { hookInput?: string } = {}): void {
  if (options.hookInput !== undefined) provideHookInput(options.hookInput);
  runCli(commands, argv, {
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
}

if (require.main === module) main(process.argv.slice(2));
