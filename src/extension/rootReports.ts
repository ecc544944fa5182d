// One report per workspace folder, re-read when a file it depends on changes (debounced, by
// folder), with one change event: the shape the BMAD v6 sprint (sprintModel.ts) and the v7 ticket
// tree (ticketTreeModel.ts) share. A kind says which files concern it and how a folder is read.
//
// VS Code's recursive watcher (on Linux: @parcel/watcher over inotify) reports a folder that
// arrives whole (moved or copied in, `mkdir -p` then files) as one event for the folder, not for
// its files; and a folder made inside a folder made the same instant is never watched at all, so
// no later edit in it is reported. So a folder that arrives is looked through for the files that
// concern a report, and the folders a report was read from are each watched on their own with
// Node's fs.watch, made once the folder exists (a handful: a tree's epic folders, a sprint's).
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { errorMessage, type Problem } from '../core/index';
import { Disposable } from './disposable';
import { FolderWatchers, filesUnder } from './folderWatch';
import type { ExtensionModel } from './model';

const IGNORE = /[\\/](node_modules|\.git|\.waymark)[\\/]/;
const IGNORE_FOLDER = /^(node_modules|\.git|\.waymark)$/;
const DEBOUNCE_MS = 250;
/** At most this many entries of a folder that arrived are looked at for files that concern a report. */
const ARRIVED_SCAN_LIMIT = 5000;

export abstract class RootReports<R extends { root: string; problems: Problem[] }> extends Disposable {
  protected readonly byRoot = new Map<string, R>();
  private readonly emitter = this.register(new vscode.EventEmitter<void>());
  readonly onDidChange = this.emitter.event;
  private timer?: NodeJS.Timeout;
  private readonly dirtyRoots = new Set<string>();
  /** The folders the reports were read from, each with a watcher of its own. */
  private readonly folderWatchers: FolderWatchers;
  /** Number of reads, for tests and the log. */
  loads = 0;
  /** No folder has been read yet: the first flush reads them all. */
  private firstPending = false;
  private firstDone!: () => void;
  /** Settles after the first read of every folder. */
  readonly firstRead = new Promise<void>((res) => (this.firstDone = res));

  /**
   * `glob`: the files the watcher reports, `names` the same as a test of a file name (for the
   * files of a folder that arrived whole); `tag`: the log's component tag.
   */
  constructor(protected readonly c: ExtensionModel, glob: string, private readonly names: RegExp, private readonly tag: string) {
    super();
    this.folderWatchers = new FolderWatchers((m) => c.log.warn(`[${tag}] ${m}`));
    const w = this.register(vscode.workspace.createFileSystemWatcher(glob));
    this.register(w.onDidChange((u) => this.queue(u)));
    this.register(w.onDidCreate((u) => this.queue(u)));
    this.register(w.onDidDelete((u) => this.queue(u)));
    // Folders: one that arrived may hold files that concern a report; one that went may have held a report's.
    const folders = this.register(vscode.workspace.createFileSystemWatcher('**/*', false, true, false));
    this.register(folders.onDidCreate((u) => this.arrived(u)));
    this.register(folders.onDidDelete((u) => this.left(u)));
    this.register(c.onDidChange((e) => (e.what === 'roots' || e.what === 'settings') && this.reloadAll()));
    this.register({
      dispose: () => {
        if (this.timer) clearTimeout(this.timer);
        this.folderWatchers.dispose();
      },
    });
    // The first read waits for the first rows of the Workflows view (model.ts, firstRowsShown), or
    // for a flush asked for before (a command, the tests).
    this.firstPending = true;
    void c.firstRowsShown().then(() => this.firstPending && !this.isDisposed && this.flushSoon(0));
  }

  /** The folders a report was read from (watched each on its own once read); none by default. */
  protected folders(_report: R): readonly string[] {
    return [];
  }

  /** Whether a change of `file` (in folder `root`) can change that folder's report. */
  protected abstract concerns(file: string, root: string): boolean;

  /** The folder's report, undefined when it has none (synchronous reads of small files). */
  protected abstract read(root: string): R | undefined;

  reports(): R[] {
    return [...this.byRoot.values()].sort((a, b) => a.root.localeCompare(b.root));
  }

  reportFor(file: string): R | undefined {
    const root = this.c.rootFor(file);
    return root ? this.byRoot.get(root) : undefined;
  }

  problems(): Problem[] {
    return this.reports().flatMap((r) => r.problems);
  }

  reloadAll(): void {
    if (this.firstPending) return; // the first flush reads every folder
    for (const r of this.c.roots) this.dirtyRoots.add(r);
    for (const r of [...this.byRoot.keys()]) if (!this.c.roots.includes(r)) this.byRoot.delete(r);
    this.flushSoon(0);
  }

  private queue(uri: vscode.Uri): void {
    if (uri.scheme !== 'file' || IGNORE.test(uri.fsPath)) return;
    const root = this.c.rootFor(uri.fsPath);
    if (!root || !this.concerns(uri.fsPath, root)) return;
    this.dirty(root);
  }

  private dirty(root: string): void {
    this.dirtyRoots.add(root);
    this.flushSoon(DEBOUNCE_MS);
  }

  /** Something was created: a folder is looked through (bounded) for a file that concerns a report. */
  private arrived(uri: vscode.Uri): void {
    const dir = uri.fsPath;
    if (uri.scheme !== 'file' || IGNORE.test(dir) || IGNORE_FOLDER.test(path.basename(dir)) || this.names.test(dir)) return;
    const root = this.c.rootFor(dir);
    if (!root || this.dirtyRoots.has(root)) return;
    // Too big to look through: the folder's reports are read again.
    const files = filesUnder(dir, ARRIVED_SCAN_LIMIT, IGNORE_FOLDER);
    if (files === 'too-many' || files.some((p) => this.names.test(path.basename(p)) && this.concerns(p, root))) this.dirty(root);
  }

  /** Something was deleted: a folder a report was read from (or one holding it) means a read again. */
  private left(uri: vscode.Uri): void {
    const gone = uri.fsPath;
    if (uri.scheme !== 'file') return;
    for (const r of this.byRoot.values()) {
      if (this.folders(r).some((f) => f === gone || f.startsWith(gone + path.sep))) this.dirty(r.root);
    }
  }

  /** Watches each folder the reports were read from; forgets those no report is read from now. */
  private watchFolders(): void {
    const wanted = new Map<string, (name?: string) => void>();
    for (const r of this.byRoot.values()) {
      for (const f of this.folders(r)) {
        const root = this.c.rootFor(f);
        if (root) wanted.set(f, (name) => (name ? this.queue(vscode.Uri.file(path.join(f, name))) : this.dirty(root)));
      }
    }
    // Gone, or made again since (a checkout, a move: another folder, which its watcher does not
    // watch), maybe before the watcher told of it: the report is read again.
    for (const f of this.folderWatchers.sync(wanted)) {
      const root = this.c.rootFor(f);
      if (root) this.dirty(root);
    }
  }

  private flushSoon(ms: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.flush(), ms);
  }

  /** Re-reads the folders that changed. */
  flush(): void {
    this.timer = undefined;
    if (this.firstPending) {
      this.firstPending = false;
      for (const r of this.c.roots) this.dirtyRoots.add(r);
    }
    const roots = [...this.dirtyRoots];
    this.dirtyRoots.clear();
    for (const root of roots) {
      try {
        const r = this.read(root);
        if (r) this.byRoot.set(root, r);
        else this.byRoot.delete(root);
        this.loads++;
      } catch (e) {
        this.c.log.error(`[${this.tag}] ${root}: ${errorMessage(e)}`);
      }
    }
    if (this.isDisposed) return;
    this.watchFolders();
    if (roots.length) this.emitter.fire();
    this.firstDone();
  }
}
