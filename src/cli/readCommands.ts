import type { CliCommand } from './framework';

export const readCommands: CliCommand[] = [];
