import * as fs from 'node:fs';
import * as path from 'node:path';
import { WaymarkError } from '../errors';
import { nativeRealPathOnce, relStaysInside } from '../store/safePath';
import { nearestMarkedFolder } from './markers';

/**
 * The workspace folder a file belongs to when no roots are given (the CLI): the nearest
 * ancestor holding `.waymark`, `_bmad`, `_bmad-output`, `.bmad`, `.bmad-core` or `.git`; else `fallback` when it
 * contains the file; else the file's folder. A marker at the file system's root (`/.git`, `/.waymark`,
 * `C:\.waymark`) is never taken: it would make every folder on the machine one workspace, walked whole.
 * The agent hooks find theirs with the same walk (markers.ts).
 */
export function findWorkspaceRoot(file: string, fallback?: string): string {
  const abs = path.resolve(file);
  const marked = nearestMarkedFolder(path.dirname(abs));
  if (marked) return marked;
  if (fallback) {
    const rel = path.relative(path.resolve(fallback), abs);
    if (rel && relStaysInside(rel)) return path.resolve(fallback);
  }
  return path.dirname(abs);
}

/** True for `/` (or a drive's root): never a project folder. */
export function isFileSystemRoot(dir: string): boolean {
  const abs = path.resolve(dir);
  return path.parse(abs).root === abs;
}

/** `root`, unless it is the file system's root (a run from `/`): that is refused, never walked whole. */
export function notFileSystemRoot(root: string): string {
  if (isFileSystemRoot(root)) throw new WaymarkError('usage', `${root} is the file system's root, not a project folder: run waymark inside a project folder, or name one with --root DIR.`);
  return root;
}

/** The deepest of `roots` containing `file`, or undefined when none does. */
export function workspaceFolderOf(roots: readonly string[], file: string): string | undefined {
  const abs = path.resolve(file);
  let best: string | undefined;
  for (const r of roots) {
    const rel = path.relative(r, abs);
    if (relStaysInside(rel) && (!best || r.length > best.length)) best = r;
  }
  return best;
}

/** The workspace folder of a file: the deepest of `roots` containing it, else one found from markers. */
export function rootAmong(roots: readonly string[], file: string): string {
  return workspaceFolderOf(roots, file) ?? findWorkspaceRoot(file, roots[0]);
}

/**
 * Refuses a write whose real target (after symlinks) lies outside the workspace folder: a
 * repository's `notes.md -> /elsewhere/plan.md` must not make Waymark edit files elsewhere.
 * Returns the real path it found (undefined when the file is missing).
 */
export function assertWritableInside(abs: string, root: string, fresh = false): string | undefined {
  let real: string;
  let realRoot: string;
  try {
    // Before the locks; the write itself checks its real path afresh (store/safePath.ts).
    // `fresh`: the file's real path asked now, not taken from the scope's names (the caller
    // names a change's files by it).
    real = fresh ? fs.realpathSync.native(abs) : nativeRealPathOnce(abs);
    realRoot = nativeRealPathOnce(root);
  } catch {
    return undefined; // missing: the read that follows reports it
  }
  const rel = path.relative(realRoot, real);
  if (!relStaysInside(rel)) {
    throw new WaymarkError('usage', `${abs} is a link to ${real}, outside the workspace ${realRoot}; Waymark does not write outside the workspace. Run the command on ${real} itself.`, abs);
  }
  return real;
}
