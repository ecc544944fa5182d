import { sprintCommands } from './sprintCommands';
import { runProcess } from './runProcess';

/** The BMAD sprint verbs (sprint, story ...) alone, bundled as cli-sprint.js: the launcher runs them here (verbBundles.ts), without the rest of the CLI. */
export const commands = sprintCommands;

export function main(argv: string[]): void {
  runProcess(commands, argv);
}
