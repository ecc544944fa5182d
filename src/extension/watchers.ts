// Debounced file watching: a changed workflow file is re-read (core.reload), a deleted one
// forgotten, a gate change triggers a rescan, a config/definition/BMAD change a new core (the
// core caches each folder's context, so only a new one reads them again). No polling.
// A folder that arrives whole (moved or copied in) is one event in VS Code, not one per file: its
// Markdown files are looked up and read; a folder that goes takes the workflows under it along.
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { WaymarkError, errorMessage } from '../core/index';
import { Disposable } from './disposable';
import { filesUnder } from './folderWatch';
import type { ExtensionModel } from './model';

/** What a folder's context is read from: config, workflow definitions, the BMAD install. */
const CONTEXT_FILES = /[\\/]\.waymark[\\/](config\.ya?ml$|workflows[\\/])|[\\/]_bmad[\\/]/;
const RESCAN = /[\\/]\.waymark[\\/]gates[\\/]|\.gate$/;
const IGNORE = /[\\/](node_modules|\.git)[\\/]|[\\/]\.waymark[\\/](history|cache|locks?|events|checkpoints|memory)[\\/]|\.(lock|tmp)$|~$/;
/** The ticket projection's breaker state and queues: no workflow state, the tracker surfaces re-read them. */
const OUTBOX = /[\\/]\.waymark[\\/]outbox[\\/]/;
const ACTIVITY = /[\\/]\.waymark[\\/](history|events)[\\/]/;
/** More pending files than this: one rescan instead of many reloads. */
const BATCH_LIMIT = 200;
const MARKDOWN = /\.(md|markdown)$/i;
/**
 * A change after a quiet spell is read this soon: the few events of one atomic write (temp file,
 * rename) arrive within it. While changes keep coming, a flush follows the first pending one by at
 * most the debounce setting, so a stream of writes never postpones what the views show.
 */
const QUICK_MS = 15;
const SKIPPED_FOLDER = /^(node_modules|\.git|\.waymark)$/;
/**
 * VS Code starts its watcher of a workspace folder just added asynchronously: an edit in its first
 * moments sends no event. The folder's Markdown files are looked through this long after it was
 * added (each re-read; only what changed reaches the views), so such an edit still shows.
 */
const ADDED_FOLDER_RECHECK_MS = [1000, 3000];

/** One flush of the queued file events. */
export interface WatcherFlush {
  /** Files re-read or forgotten (0 when the flush was a rescan). */
  readonly files: number;
  readonly rescan: boolean;
}

/** One file re-read (or forgotten) after a watcher event, and how fast. */
export interface WatcherReload {
  readonly file: string;
  readonly reloadMs: number;
  /** From the first watcher event of the file to its state in the model, ms (includes the debounce). */
  readonly eventToModelMs?: number;
}

export class Watchers extends Disposable {
  private readonly flushed = this.register(new vscode.EventEmitter<WatcherFlush>());
  /** Fired after each flush (the test API reads it). */
  readonly onDidFlush = this.flushed.event;
  private readonly reloaded = this.register(new vscode.EventEmitter<WatcherReload>());
  /** Fired as soon as a file's new state is in the model (the bench reads it through the test API). */
  readonly onDidReload = this.reloaded.event;
  private readonly outbox = this.register(new vscode.EventEmitter<string>());
  /** A file under a folder's .waymark/outbox changed (the breaker, a queue): the tracker status reads it. */
  readonly onDidChangeOutbox = this.outbox.event;
  private readonly pending = new Map<string, 'change' | 'delete'>();
  private readonly firstEventAt = new Map<string, number>();
  private timer?: NodeJS.Timeout;
  private lastFlushAt = -Infinity;
  private rescanWanted = false;
  private contextChanged = false;
  private running: Promise<void> = Promise.resolve();

  /** The watchers of each workspace folder, by its path. */
  private readonly byRoot = new Map<string, vscode.Disposable[]>();
  private synced = false;

  constructor(private readonly c: ExtensionModel) {
    super();
    this.register({
      dispose: () => {
        clearTimeout(this.timer);
        for (const ds of this.byRoot.values()) for (const d of ds) d.dispose();
        this.byRoot.clear();
      },
    });
    this.sync();
    // Folders added to (or removed from) the workspace get (or lose) their watchers.
    this.register(c.onDidChange((e) => e.what === 'roots' && this.sync()));
  }

  /** Roots being watched now (for tests and the log). */
  get watchedRoots(): string[] {
    return [...this.byRoot.keys()];
  }

  private sync(): void {
    const roots = new Set(this.c.roots);
    for (const [root, ds] of this.byRoot) {
      if (roots.has(root)) continue;
      for (const d of ds) d.dispose();
      this.byRoot.delete(root);
    }
    for (const root of roots) {
      if (this.byRoot.has(root)) continue;
      const folder = vscode.workspace.workspaceFolders?.find((f) => f.uri.scheme === 'file' && f.uri.fsPath === root);
      const base = folder ?? vscode.Uri.file(root);
      const md = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(base, '**/*.{md,markdown}'));
      const meta = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(base, '{.waymark/**,_bmad/**,**/*.gate}'));
      const folders = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(base, '**/*'), false, true, false);
      const ds: vscode.Disposable[] = [folders, folders.onDidCreate((u) => this.folderArrived(u.fsPath)), folders.onDidDelete((u) => this.folderLeft(u.fsPath))];
      for (const w of [md, meta]) {
        ds.push(
          w,
          w.onDidCreate((u) => this.queue(u, 'change')),
          w.onDidChange((u) => this.queue(u, 'change')),
          w.onDidDelete((u) => this.queue(u, 'delete')),
        );
      }
      // A folder added after the first one: looked through again once VS Code watches it.
      if (this.synced) {
        for (const ms of ADDED_FOLDER_RECHECK_MS) {
          const t = setTimeout(() => this.recheck(root), ms);
          ds.push({ dispose: () => clearTimeout(t) });
        }
      }
      this.byRoot.set(root, ds);
    }
    this.synced = true;
  }

  /** Every Markdown file of a folder just added is read again (a rescan when it holds many). */
  private recheck(root: string): void {
    if (this.isDisposed || !this.byRoot.has(root)) return;
    const files = filesUnder(root, BATCH_LIMIT * 10, SKIPPED_FOLDER);
    if (files === 'too-many') {
      this.rescanWanted = true;
      this.queue(vscode.Uri.file(root), 'change');
      return;
    }
    this.c.log.debug(`[watch] ${root} was added: its ${files.length} file(s) looked through again`);
    for (const f of files) if (MARKDOWN.test(f)) this.queue(vscode.Uri.file(f), 'change');
  }

  /** A folder came (its files are one event in VS Code): its Markdown files are read, a rescan when there are many. */
  private folderArrived(dir: string): void {
    if (MARKDOWN.test(dir) || IGNORE.test(dir) || SKIPPED_FOLDER.test(path.basename(dir)) || /[\\/]\.waymark[\\/]/.test(dir) || !this.c.rootFor(dir)) return;
    const files = filesUnder(dir, BATCH_LIMIT * 10, SKIPPED_FOLDER);
    if (files === 'too-many') {
      // Too big to look through here (a checkout): one rescan.
      this.rescanWanted = true;
      this.queue(vscode.Uri.file(dir), 'change');
      return;
    }
    for (const f of files) if (MARKDOWN.test(f)) this.queue(vscode.Uri.file(f), 'change');
  }

  /** A folder went: the workflows the model knows under it go too (VS Code may say so only of the folder). */
  private folderLeft(gone: string): void {
    if (MARKDOWN.test(gone) || /[\\/]\.waymark[\\/]/.test(gone)) return;
    const prefix = gone + path.sep;
    for (const s of this.c.states()) if (s.file.startsWith(prefix)) this.queue(vscode.Uri.file(s.file), 'delete');
  }

  private queue(uri: vscode.Uri, kind: 'change' | 'delete'): void {
    const file = uri.fsPath;
    // History and events are no workflow state but activity: the project view hears of them (it
    // sees re-read states by itself, and the sprint model tells it of sprint files).
    if (ACTIVITY.test(file)) {
      this.c.project.filesChanged([file]);
      return;
    }
    if (IGNORE.test(file)) return;
    if (!this.c.rootFor(file)) return; // a folder just removed from the workspace
    if (OUTBOX.test(file)) {
      this.outbox.fire(file);
      return;
    }
    if (!this.firstEventAt.has(file)) this.firstEventAt.set(file, performance.now());
    if (CONTEXT_FILES.test(file)) this.contextChanged = true;
    else if (RESCAN.test(file)) this.rescanWanted = true;
    else this.pending.set(file, kind);
    // Already due: this event joins that flush (a later event never puts it off).
    if (this.timer) return;
    const debounce = this.c.settings.watcherDebounceMs;
    const quiet = performance.now() - this.lastFlushAt >= debounce;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.lastFlushAt = performance.now();
      this.running = this.running.then(() => this.flush());
    }, quiet ? Math.min(QUICK_MS, debounce) : debounce);
  }

  private async flush(): Promise<void> {
    if (this.isDisposed) return;
    const batch = [...this.pending];
    this.pending.clear();
    const reconfigure = this.contextChanged;
    const rescan = reconfigure || this.rescanWanted || batch.length > BATCH_LIMIT;
    this.rescanWanted = false;
    this.contextChanged = false;
    let files = 0;
    try {
      if (rescan) {
        this.firstEventAt.clear();
        this.c.log.debug(`[watch] ${reconfigure ? 'new core' : 'rescan'} (${batch.length} file event(s))`);
        if (reconfigure) await this.c.reconfigure('config, definitions or BMAD install changed', true);
        else await this.c.rescan();
        return;
      }
      for (const [file, kind] of batch) {
        if (!this.c.rootFor(file)) continue;
        const started = performance.now();
        try {
          if (kind === 'delete') this.c.core.remove(file);
          else await this.c.core.reload(file);
        } catch (e) {
          // One file that cannot be read (a README that is no workflow) does not stop the batch.
          if (WaymarkError.is(e, 'usage')) this.c.log.trace(`[watch] ${file}: ${errorMessage(e)}`);
          else this.c.log.warn(`[watch] could not reload ${file}: ${errorMessage(e)}`);
          continue;
        }
        const done = performance.now();
        files++;
        const first = this.firstEventAt.get(file);
        this.firstEventAt.delete(file);
        this.reloaded.fire({ file, reloadMs: done - started, eventToModelMs: first === undefined ? undefined : done - first });
        this.c.log.trace(`[watch] ${kind} ${file} in ${(done - started).toFixed(1)} ms`);
      }
    } catch (e) {
      this.c.log.error(`[watch] could not reload: ${errorMessage(e)}`);
    } finally {
      if (!this.isDisposed) this.flushed.fire({ files, rescan });
    }
  }
}
