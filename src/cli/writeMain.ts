import { writeCommands } from './writeCommands';
import { runProcess } from './runProcess';

/** The workflow write verbs (start, advance, set-status, gate ..., fix ...) alone, bundled as cli-write.js: the launcher runs them here (verbBundles.ts), without the rest of the CLI. */
export const commands = writeCommands;

export function main(argv: string[]): void {
  runProcess(commands, argv);
}
