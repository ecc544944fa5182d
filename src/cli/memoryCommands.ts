import type { CliCommand } from './framework';

export const memoryCommands: CliCommand[] = [];
