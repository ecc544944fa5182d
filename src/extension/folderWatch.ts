// What VS Code's recursive file watcher misses, made up for. On Linux (@parcel/watcher over
// inotify) it reports a folder that arrives whole (moved or copied in, `mkdir -p` then files) as one
// event for the folder, not for its files, and never watches a folder made inside a folder made the
// same instant, so no later change there is reported. `filesUnder` looks through a folder that
// arrived (bounded); `FolderWatchers` watches a handful of folders each with Node's own fs.watch
// (VS Code serves a non-recursive watcher inside the workspace from the recursive one).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { errorMessage } from '../core/index';

/**
 * Every file below `dir` (folders named like `skip` not entered), or 'too-many' once more than
 * `limit` entries (files and folders) were seen. A `dir` that is no folder, or is gone, has none.
 */
export function filesUnder(dir: string, limit: number, skip: RegExp): string[] | 'too-many' {
  const files: string[] = [];
  let seen = 0;
  const look = (folder: string): boolean => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(folder, { withFileTypes: true });
    } catch {
      return true; // not a folder (a file of another kind), or gone already
    }
    for (const e of entries) {
      if (++seen > limit) return false;
      const p = path.join(folder, e.name);
      if (e.isDirectory()) {
        if (!skip.test(e.name) && !look(p)) return false;
      } else files.push(p);
    }
    return true;
  };
  return look(dir) ? files : 'too-many';
}

function inode(folder: string): number {
  try {
    return fs.statSync(folder).ino;
  } catch {
    return -1;
  }
}

/** Node's own watcher of each of a set of folders, made again when a folder is (another inode). */
export class FolderWatchers {
  private readonly byFolder = new Map<string, { ino: number; close(): void }>();

  constructor(private readonly warn: (message: string) => void) {}

  /**
   * Watches each folder of `wanted` that exists (folder → what to call on a change in it: with the
   * entry's name when Node gives one, with none when the watch ended because the folder went) and
   * stops watching the others. Returns the watched folders that went or were made again since:
   * what was read from them may be out of date.
   */
  sync(wanted: ReadonlyMap<string, (name?: string) => void>): string[] {
    const moved: string[] = [];
    for (const [f, d] of this.byFolder) {
      if (wanted.has(f)) {
        if (inode(f) === d.ino) continue;
        moved.push(f);
      }
      d.close();
      this.byFolder.delete(f);
    }
    for (const [f, on] of wanted) {
      if (this.byFolder.has(f)) continue;
      const ino = inode(f);
      if (ino < 0) continue;
      let w: fs.FSWatcher;
      try {
        w = fs.watch(f, { persistent: false }, (_event, name) => on(name ? name.toString() : undefined));
      } catch (e) {
        this.warn(`could not watch ${f}: ${errorMessage(e)}`);
        continue;
      }
      const entry = { ino, close: () => w.close() };
      // The folder went (or cannot be watched any more): the next sync watches what is there then.
      w.on('error', () => {
        w.close();
        if (this.byFolder.get(f) === entry) this.byFolder.delete(f);
        on(undefined);
      });
      this.byFolder.set(f, entry);
    }
    return moved;
  }

  dispose(): void {
    for (const d of this.byFolder.values()) d.close();
    this.byFolder.clear();
  }
}
