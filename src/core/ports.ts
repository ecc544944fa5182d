/** What the core needs from its host. The VS Code layer passes its LogOutputChannel as Logger. */
export interface Logger {
  trace(message: string, ...args: unknown[]): void;
  debug(message: string, ...args: unknown[]): void;
  info(message: string, ...args: unknown[]): void;
  warn(message: string, ...args: unknown[]): void;
  error(message: string | Error, ...args: unknown[]): void;
}

export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

export const silentLogger: Logger = {
  trace() {},
  debug() {},
  info() {},
  warn() {},
  error() {},
};

/** What the core needs to know of a file before reading it. */
export interface FileStat {
  isFile(): boolean;
  size: number;
  mtimeMs: number;
}

/**
 * How the core reads workflow files. The default reads the disk (never opening a FIFO or
 * device); a host may lay unsaved editor text over it, and tests may hand in their own, so every
 * reader of a workflow file sees the same bytes. Errors carry Node's `code` (`ENOENT`, `EFBIG`,
 * `ENOTREG`, …) so the one reader can explain them.
 */
export interface FileSystem {
  stat(file: string): FileStat;
  /** The bytes of a regular file; throws `EFBIG` past `maxBytes`, `ENOTREG` for a non-file. */
  readFile(file: string, maxBytes: number): Uint8Array;
}
