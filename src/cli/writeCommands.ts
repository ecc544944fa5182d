import type { CliCommand } from './framework';

export const writeCommands: CliCommand[] = [];
