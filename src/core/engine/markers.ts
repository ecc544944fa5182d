/**
 * The one workspace finder, shared by the core (roots.ts) and the agent hooks' fast path
 * (hooks/quickCheck.ts): node built-ins only, so the hook bundles stay small. Two lists once
 * disagreed (the hooks' lacked `.bmad` and `.bmad-core`), and a hook judged a BMAD v4 project
 * against the git folder above it.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

/** A folder holding one of these (as a folder) is a workspace: Waymark's, a BMAD install or output, git. */
export const ROOT_MARKERS: readonly string[] = ['.waymark', '_bmad', '_bmad-output', '.bmad', '.bmad-core', '.git'];

/**
 * The nearest folder at or above `start` holding a marker; undefined when none does. The file
 * system's root is never one (`/.git`, `/.waymark`: the whole machine would be one workspace).
 */
export function nearestMarkedFolder(start: string): string | undefined {
  for (let dir = path.resolve(start); ; ) {
    if (path.parse(dir).root === dir) return undefined;
    for (const m of ROOT_MARKERS) {
      try {
        if (fs.statSync(path.join(dir, m)).isDirectory()) return dir;
      } catch {
        // not here; keep walking up
      }
    }
    const up = path.dirname(dir);
    if (up === dir) return undefined;
    dir = up;
  }
}
