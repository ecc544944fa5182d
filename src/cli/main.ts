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
import { runProcess } from './runProcess';

/** Every verb of the CLI, in the order `waymark --help` lists them. */
export const commands = [...readCommands, ...writeCommands, ...protocolCommands, ...memoryCommands, ...sprintCommands, ...projectCommands, ...ticketCommands, ...treeCommands, ...gitCommands, ...refCommands, mcpCommand, ...hookCommands];

/**
 * Runs the full CLI (bundled as cli-main.js; dist/cli.js, the launcher, loads it for the verbs no
 * smaller bundle holds: see verbBundles.ts). `hookInput`: the stdin text the launcher already read
 * for a `hook` verb.
 */
export function main(argv: string[], options: { hookInput?: string } = {}): void {
  if (options.hookInput !== undefined) provideHookInput(options.hookInput);
  runProcess(commands, argv);
}
