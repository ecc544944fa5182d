import { protocolCommands } from './protocolCommands';
import { runProcess } from './runProcess';

/** The protocol verbs (resume, history, checkpoint, lease, mode, events, sync) alone, bundled as cli-protocol.js: the launcher runs them here (verbBundles.ts), without the rest of the CLI. */
export const commands = protocolCommands;

export function main(argv: string[]): void {
  runProcess(commands, argv);
}
