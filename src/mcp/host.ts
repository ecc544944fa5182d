// What a tool needs from the face that runs it. The MCP server (one long-lived core per root,
// watching the files) and the VS Code language-model tools (the extension's core, its unsaved
// editors and its trust) each implement it once; the tool table does the rest.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { WaymarkError, fileUriPath } from '../core/index';
import type { LeaseOwner, MemoryService, MutationOptions, MutationResult, ProjectView, SprintReport, StateCore, TicketTree, WorkflowState } from '../core/index';

export interface ToolHost {
  /** Workspace folders the tools answer for and may write in (absolute). */
  readonly roots: readonly string[];
  readonly core: StateCore;
  /** Recorded in history when a call names no actor. */
  readonly actor: string;
  /** Applies file changes seen but not yet read (watcher debounce) before a whole-workspace answer. */
  refresh(): Promise<void>;
  /** The current state of one workflow file, re-read when it changed on disk since the last read. */
  state(file: string): Promise<WorkflowState>;
  /**
   * Runs a mutation of a workflow file. The VS Code host applies it to an editor with unsaved
   * changes instead of writing behind it; the MCP host writes through the core.
   */
  mutate(file: string, options: MutationOptions, op: (o: MutationOptions) => Promise<MutationResult>): Promise<MutationResult & { appliedToEditor?: boolean }>;
  /** Throws WaymarkError('unavailable') when writes are not allowed (VS Code Restricted Mode). */
  assertCanWrite(action: string): void;
  /** The memory service of a root (one per process: only one opener of the Kuzu database). */
  memory(root: string): MemoryService;
  /** Who holds leases taken through this host. */
  owner(): LeaseOwner;
  /** The project view (dependencies, frontier, stalled work) over the current states. */
  project(): Promise<ProjectView>;
  /** The BMAD sprint of the first root from the host's warm project view; without it the tools read it afresh. */
  sprint?(): Promise<SprintReport | undefined>;
  /**
   * BMAD v7's ticket tree of the first root as of the last `refresh()` (callers refresh first; `project()` does),
   * kept by the host while none of its files changed; without it the tools read it afresh.
   */
  ticketTree?(): Promise<TicketTree | undefined>;
}

/** Whether `child` is `parent` or lies under it; both absolute and normalised (resolved or real paths). */
function inside(child: string, parent: string): boolean {
  if (path.sep === '/') {
    // A prefix ending at a separator: what path.relative says of normalised POSIX paths, without
    // building the relative path (every tool call checks its path twice).
    if (!child.startsWith(parent)) return false;
    return child.length === parent.length || parent.endsWith('/') || child.charCodeAt(parent.length) === 47;
  }
  const rel = path.relative(parent, child);
  return rel === '' || (!/^\.\.(?:[\\/]|$)/.test(rel) && !path.isAbsolute(rel));
}

/** The real path of `abs`, or of its nearest existing ancestor joined with the rest. */
function realish(abs: string): string {
  let dir = abs;
  const rest: string[] = [];
  for (;;) {
    try {
      return path.join(fs.realpathSync.native(dir), ...rest.reverse());
    } catch {
      const up = path.dirname(dir);
      if (up === dir) return abs;
      rest.push(path.basename(dir));
      dir = up;
    }
  }
}

/**
 * A root's real path, resolved once per process: every call of a tool checks its path against it.
 * A root swapped for a link afterwards only makes the check stricter (the old real path no longer
 * holds anything), never looser.
 */
const realRoots = new Map<string, string>();
function realRoot(root: string): string {
  let real = realRoots.get(root);
  if (real === undefined) {
    try {
      real = fs.realpathSync.native(root);
    } catch {
      return realish(root);
    }
    realRoots.set(root, real);
  }
  return real;
}

/** A root as path.resolve gives it (a face may hand one with a trailing separator or `..`). */
const resolvedRoots = new Map<string, string>();
function resolvedRoot(root: string): string {
  let resolved = resolvedRoots.get(root);
  if (resolved === undefined) resolvedRoots.set(root, (resolved = path.resolve(root)));
  return resolved;
}

/**
 * Resolves a path an agent gave (absolute, or relative to the first root) and refuses it unless
 * its real path (after symlinks) lies inside one of the roots. Returns the absolute path as given
 * (not the real one), so it matches the core's model keys; and the root it belongs to.
 */
export function resolveInside(roots: readonly string[], raw: string): { abs: string; root: string } {
  if (typeof raw !== 'string' || !raw.trim()) throw new WaymarkError('usage', 'The path is empty; give a workflow file relative to the workspace folder.');
  if (raw.includes('\0')) throw new WaymarkError('usage', 'The path holds a NUL byte; give a workflow file relative to the workspace folder.');
  const base = roots[0];
  // A `file://` URI names its file, as the hooks read it (core/engine/fileUri.ts); never a relative name `file:/…`.
  let local: string | undefined;
  try {
    local = fileUriPath(raw);
  } catch (e) {
    throw new WaymarkError('usage', `${raw} names no local file (${e instanceof Error ? e.message : String(e)}); give a path relative to the workspace folder, or a file:/// URI of a file inside it.`);
  }
  const abs = path.resolve(base, local ?? raw);
  const real = realish(abs);
  let best: string | undefined;
  for (const r of roots) {
    if (inside(abs, resolvedRoot(r)) && inside(real, realRoot(r)) && (!best || r.length > best.length)) best = r;
  }
  if (!best) {
    throw new WaymarkError('usage', `${raw} is outside the workspace (${roots.join(', ')}); Waymark's tools only read and write inside it. Give a path relative to the workspace folder.`, abs, { outside: true });
  }
  return { abs, root: best };
}

/**
 * A path as agents see it: relative to the root with forward slashes (one root), absolute when
 * there are several roots (a relative path would be ambiguous).
 */
export function relativeTo(roots: readonly string[], abs: string): string {
  if (roots.length !== 1) return abs;
  const rel = path.relative(roots[0], abs);
  if (/^\.\.(?:[\\/]|$)/.test(rel) || path.isAbsolute(rel)) return abs;
  return (path.sep === '/' ? rel : rel.split(path.sep).join('/')) || '.';
}
