import * as fs from 'node:fs';
import type { FileStat, FileSystem } from '../ports';
import { readRegularFileSync } from './safeRead';

/** The disk, read safely (no FIFOs or devices, a size cap). The core's default `FileSystem`. */
export const nodeFileSystem: FileSystem = {
  stat: (file) => fs.statSync(file),
  readFile: (file, maxBytes) => readRegularFileSync(file, maxBytes),
};

/**
 * A `FileSystem` that answers from `textOf(file)` when it has text for the file (an editor's
 * unsaved buffer) and from `base` otherwise; the size and time of an overlaid file are its text's.
 */
export function overlayFileSystem(base: FileSystem, textOf: (file: string) => string | undefined): FileSystem {
  return {
    stat(file): FileStat {
      const text = textOf(file);
      if (text === undefined) return base.stat(file);
      const st = (() => {
        try {
          return base.stat(file);
        } catch {
          return undefined;
        }
      })();
      return { isFile: () => true, size: Buffer.byteLength(text, 'utf8'), mtimeMs: st?.mtimeMs ?? Date.now() };
    },
    readFile(file, maxBytes) {
      const text = textOf(file);
      if (text === undefined) return base.readFile(file, maxBytes);
      const buf = Buffer.from(text, 'utf8');
      if (buf.length > maxBytes) throw Object.assign(new Error(`${file} is ${buf.length} bytes, over the ${maxBytes}-byte limit`), { code: 'EFBIG' });
      return buf;
    },
  };
}
