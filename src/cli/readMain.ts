import { readCommands } from './readCommands';
import { runProcess } from './runProcess';

/** The read verbs (status, scan, validate, chain, manifest, changed) alone, bundled as cli-read.js: the launcher runs them here (verbBundles.ts), without the rest of the CLI. */
export const commands = readCommands;

export function main(argv: string[]): void {
  runProcess(commands, argv);
}
