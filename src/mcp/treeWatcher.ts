// Watches a workspace folder for the MCP server and says, before every answer, whether the
// events it delivered can be trusted. On Linux one inotify watch per folder (Node's recursive
// watch there watches each file's inode, so after an atomic replace the file's later in-place
// edits go unseen); elsewhere the platform's recursive watch. The folders' stats back it up: a
// folder whose listing changed without an event is listed again and the difference reported.
import * as fs from 'node:fs';
import * as path from 'node:path';

export interface TreeWatcherOptions {
  /** Folders (relative, `/`-separated) whose content is never reported nor watched. */
  ignore(rel: string): boolean;
  /** A file or folder (absolute) was created, changed or removed. */
  onChange(abs: string): void;
}

interface Folder {
  stamp: Stamp;
  names: Set<string>;
  watcher?: fs.FSWatcher;
}

/** More events than this between two turns of the event loop may have overflowed the kernel's queue. */
function overflowGuard(): number {
  try {
    return Math.floor(Number(fs.readFileSync('/proc/sys/fs/inotify/max_queued_events', 'utf8').trim()) / 2) || 8192;
  } catch {
    return 8192;
  }
}

/** What moves when a folder's listing changes: compared as numbers (no string per folder per answer). */
interface Stamp {
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
}

function stampOf(st: fs.Stats): Stamp {
  return { mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, ino: st.ino };
}

function moved(st: fs.Stats | undefined, was: Stamp): boolean {
  return !st || st.mtimeMs !== was.mtimeMs || st.ctimeMs !== was.ctimeMs || st.ino !== was.ino;
}

export class TreeWatcher {
  private readonly folders = new Map<string, Folder>();
  private recursive?: fs.FSWatcher;
  private readonly perFolder = process.platform === 'linux';
  private burst = 0;
  private burstReset?: NodeJS.Immediate;
  private readonly guard = overflowGuard();
  /** Why events can no longer be trusted (a watch failed, the queue may have overflowed). */
  lost?: string;
  private closed = false;

  constructor(
    private readonly root: string,
    private readonly options: TreeWatcherOptions,
  ) {}

  /** Lists every folder and watches it; false (and `lost` says why) when watching is not possible. */
  start(): boolean {
    try {
      if (!this.perFolder) {
        this.recursive = fs.watch(this.root, { recursive: true, persistent: false }, (e, name) => this.event(name ? path.join(this.root, name.toString()) : undefined, undefined, e));
        this.recursive.on('error', (e) => this.fail(`the watch failed (${e.message})`));
      }
      this.add(this.root, false);
    } catch (e) {
      this.fail(`cannot watch ${this.root} (${(e as Error).message})`);
    }
    return !this.lost;
  }

  /** Folders watched. */
  get size(): number {
    return this.folders.size;
  }

  private rel(abs: string): string {
    return relativeTo(this.root, abs);
  }

  /** Watches `dir` and the folders under it; `report`: say each file found (a folder new since the last look). */
  private add(dir: string, report: boolean): void {
    if (this.closed || this.folders.has(dir) || (dir !== this.root && this.options.ignore(this.rel(dir)))) return;
    let watcher: fs.FSWatcher | undefined;
    if (this.perFolder) {
      // Watch before listing: a file created in between is then both listed and reported.
      watcher = fs.watch(dir, { persistent: false }, (e, name) => this.event(name ? path.join(dir, name.toString()) : dir, dir, e));
      watcher.on('error', () => this.gone(dir));
    }
    const listed = listing(dir);
    if (!listed) {
      watcher?.close();
      return;
    }
    const { st, entries } = listed;
    this.folders.set(dir, { stamp: stampOf(st), names: new Set(entries.map((e) => e.name)), watcher });
    for (const e of entries) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) this.add(p, report);
      else if (report) this.options.onChange(p);
    }
  }

  private gone(dir: string): void {
    for (const [d, f] of this.folders) {
      if (d === dir || d.startsWith(dir + path.sep)) {
        f.watcher?.close();
        this.folders.delete(d);
      }
    }
  }

  /** `kind`: 'rename' (a name appeared or went away) or 'change' (a file's bytes or attributes: never a new folder). */
  private event(abs: string | undefined, dir?: string, kind?: string): void {
    if (this.closed) return;
    if (++this.burst > this.guard) this.fail('too many file events at once (the kernel queue may have overflowed)');
    this.burstReset ??= setImmediate(() => {
      this.burst = 0;
      this.burstReset = undefined;
    });
    if (!abs) {
      // No name (the platform did not say): every folder is checked against its listing.
      this.verify(true);
      return;
    }
    if (dir && abs === dir) {
      this.relist(dir);
      return;
    }
    const rel = this.rel(abs);
    if (this.options.ignore(rel)) return;
    this.options.onChange(abs);
    // A new folder is watched (and what was created in it before the watch reported); a removed one forgotten.
    // A file written in place (history lines, the events log: most events of a write) cannot be a
    // new folder, so it is not stat'ed; a folder made comes as a 'rename' (and the stats before an
    // answer find it too).
    if (this.folders.has(abs)) {
      if (!fs.existsSync(abs)) this.gone(abs);
    } else if (kind !== 'change') {
      try {
        if (fs.statSync(abs).isDirectory()) this.add(abs, true);
      } catch {
        // removed again already
      }
    }
  }

  private fail(why: string): void {
    if (this.lost) return;
    this.lost = why;
  }

  /** Lists `dir` again and reports what appeared or went away since its last listing. */
  private relist(dir: string): void {
    const f = this.folders.get(dir);
    if (!f) return;
    const listed = listing(dir);
    if (!listed) {
      this.options.onChange(dir);
      this.gone(dir);
      return;
    }
    const { st, entries } = listed;
    const names = new Set(entries.map((e) => e.name));
    for (const e of entries) {
      if (f.names.has(e.name)) continue;
      const p = path.join(dir, e.name);
      if (this.options.ignore(this.rel(p))) continue;
      if (e.isDirectory()) this.add(p, true);
      this.options.onChange(p);
    }
    for (const n of f.names) {
      if (names.has(n)) continue;
      const p = path.join(dir, n);
      if (this.folders.has(p)) this.gone(p);
      if (!this.options.ignore(this.rel(p))) this.options.onChange(p);
    }
    f.stamp = stampOf(st);
    f.names = names;
  }

  /**
   * The check before an answer: one stat per watched folder; a folder whose stat moved is listed
   * again (files created, removed or renamed into place are reported even when their event was
   * lost). In-place edits show only as events: `lost` says when those cannot be trusted.
   */
  verify(all = false): void {
    for (const [dir, f] of this.folders) {
      let st: fs.Stats | undefined;
      try {
        st = fs.statSync(dir, { throwIfNoEntry: false });
      } catch {
        st = undefined;
      }
      if (all || moved(st, f.stamp)) this.relist(dir);
    }
  }

  close(): void {
    this.closed = true;
    if (this.burstReset) clearImmediate(this.burstReset);
    this.recursive?.close();
    for (const f of this.folders.values()) f.watcher?.close();
    this.folders.clear();
  }
}

/**
 * `abs` relative to `root`, `/`-separated. The paths reported are the root joined with names, so
 * this is what follows the root's own path (path.relative otherwise: one per event adds up).
 */
export function relativeTo(root: string, abs: string): string {
  const prefix = root.endsWith(path.sep) ? root : root + path.sep;
  const rel = abs.startsWith(prefix) && !abs.includes(`${path.sep}..`) ? abs.slice(prefix.length) : path.relative(root, abs);
  return path.sep === '/' ? rel : rel.split(path.sep).join('/');
}

/** A folder's stat and its entries, read together; undefined when it cannot be read (gone, not a folder, no access). */
function listing(dir: string): { st: fs.Stats; entries: fs.Dirent[] } | undefined {
  try {
    return { st: fs.statSync(dir), entries: fs.readdirSync(dir, { withFileTypes: true }) };
  } catch {
    return undefined;
  }
}
