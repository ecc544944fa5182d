/**
 * Promise forms of the few asynchronous file operations the core makes, over `node:fs`'s callback
 * API. `fs.promises` would do the same, but its first use loads `internal/fs/promises` and with it
 * `net`, streams and readline: a CLI process paid ~5–10 ms of module loading for one missing
 * config file. These load nothing.
 */
import * as fs from 'node:fs';

function done<T>(resolve: (v: T) => void, reject: (e: unknown) => void) {
  return (e: NodeJS.ErrnoException | null, v: T) => (e ? reject(e) : resolve(v));
}

export const openAsync = (file: string, flags: number | string): Promise<number> => new Promise((res, rej) => fs.open(file, flags, done(res, rej)));
export const fstatAsync = (fd: number): Promise<fs.Stats> => new Promise((res, rej) => fs.fstat(fd, done(res, rej)));
export const statAsync = (file: string): Promise<fs.Stats> => new Promise((res, rej) => fs.stat(file, done(res, rej)));
export const closeAsync = (fd: number): Promise<void> => new Promise((res, rej) => fs.close(fd, (e) => (e ? rej(e) : res())));
export const readdirAsync = (dir: string): Promise<string[]> => new Promise((res, rej) => fs.readdir(dir, done(res, rej)));
/** The whole file (by path or open descriptor) as bytes. */
export const readFileAsync = (file: string | number): Promise<Buffer> => new Promise((res, rej) => fs.readFile(file, done(res, rej)));
/** Reads up to `length` bytes at `position` into `buf`; resolves to the count read. */
export const readAsync = (fd: number, buf: Buffer, offset: number, length: number, position: number | null): Promise<number> =>
  new Promise((res, rej) => fs.read(fd, buf, offset, length, position, done(res, rej)));
