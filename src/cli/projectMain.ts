import { projectCommands } from './projectCommands';
import { runProcess } from './runProcess';

/** The project view verbs (next, board, deps, timeline) alone, bundled as cli-project.js: the launcher runs them here (verbBundles.ts), without the rest of the CLI. */
export const commands = projectCommands;

export function main(argv: string[]): void {
  runProcess(commands, argv);
}
