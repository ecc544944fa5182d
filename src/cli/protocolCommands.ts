import type { CliCommand } from './framework';

export const protocolCommands: CliCommand[] = [];
