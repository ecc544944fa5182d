// Debounced file watching: a changed workflow file is re-read (core.reload), a deleted one
// forgotten, a config/definition/gate change triggers a rescan. No polling.
import * as vscode from 'vscode';
import { errorMessage } from '../core/index';
import { CONFIG_SECTION } from './constants';
import type { Container } from './container';

const RESCAN = /[\\/]\.waymark[\\/](config\.ya?ml$|workflows[\\/]|gates[\\/])|\.gate$|[\\/]_bmad[\\/]/;
const IGNORE = /[\\/](node_modules|\.git)[\\/]|[\\/]\.waymark[\\/](history|cache|locks?|events|checkpoints|memory)[\\/]|\.(lock|tmp)$|~$/;
/** More pending files than this: one rescan instead of many reloads. */
const BATCH_LIMIT = 200;

export class Watchers implements vscode.Disposable {
  private readonly disposables: vscode.Disposable[] = [];
  private readonly pending = new Map<string, 'change' | 'delete'>();
  private readonly firstEventAt = new Map<string, number>();
  private timer?: NodeJS.Timeout;
  private rescanWanted = false;
  private running: Promise<void> = Promise.resolve();
  /** Count of flushes, for tests and the log. */
  flushes = 0;
  /** When the last watcher event arrived and when the reload it caused finished (performance.now()). */
  lastEventAt = 0;
  lastReloadMs = 0;
  /** From the first watcher event of the last reloaded file to its state in the model, ms. */
  lastEventToModelMs = 0;

  /** The watchers of each workspace folder, by its path. */
  private readonly byRoot = new Map<string, vscode.Disposable[]>();

  constructor(private readonly c: Container) {
    this.sync();
    // Folders added to (or removed from) the workspace get (or lose) their watchers.
    this.disposables.push(c.onDidChangeRoots(() => this.sync()));
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
      const ds: vscode.Disposable[] = [];
      for (const w of [md, meta]) {
        ds.push(
          w,
          w.onDidCreate((u) => this.queue(u, 'change')),
          w.onDidChange((u) => this.queue(u, 'change')),
          w.onDidDelete((u) => this.queue(u, 'delete')),
        );
      }
      this.byRoot.set(root, ds);
    }
  }

  private queue(uri: vscode.Uri, kind: 'change' | 'delete'): void {
    const file = uri.fsPath;
    if (IGNORE.test(file)) return;
    if (!this.c.rootFor(file)) return; // a folder just removed from the workspace
    this.lastEventAt = performance.now();
    if (!this.firstEventAt.has(file)) this.firstEventAt.set(file, this.lastEventAt);
    if (RESCAN.test(file)) this.rescanWanted = true;
    else this.pending.set(file, kind);
    clearTimeout(this.timer);
    const delay = vscode.workspace.getConfiguration(CONFIG_SECTION).get<number>('watcher.debounceMs', 100);
    this.timer = setTimeout(() => {
      this.running = this.running.then(() => this.flush());
    }, Math.max(0, delay));
  }

  private async flush(): Promise<void> {
    this.flushes++;
    const batch = [...this.pending];
    this.pending.clear();
    const rescan = this.rescanWanted || batch.length > BATCH_LIMIT;
    this.rescanWanted = false;
    try {
      if (rescan) {
        this.firstEventAt.clear();
        this.c.log.debug(`[watch] rescan (${batch.length} file event(s))`);
        await this.c.rescan();
        return;
      }
      for (const [file, kind] of batch) {
        if (!this.c.rootFor(file)) continue;
        const started = performance.now();
        if (kind === 'delete') this.c.core.remove(file);
        else await this.c.core.reload(file);
        const done = performance.now();
        this.lastReloadMs = done - started;
        const first = this.firstEventAt.get(file);
        if (first !== undefined) this.lastEventToModelMs = done - first;
        this.firstEventAt.delete(file);
        this.c.log.trace(`[watch] ${kind} ${file} in ${this.lastReloadMs.toFixed(1)} ms`);
      }
    } catch (e) {
      this.c.log.error(`[watch] could not reload: ${errorMessage(e)}`);
    }
  }

  dispose(): void {
    clearTimeout(this.timer);
    for (const d of this.disposables) d.dispose();
    for (const ds of this.byRoot.values()) for (const d of ds) d.dispose();
    this.byRoot.clear();
  }
}
