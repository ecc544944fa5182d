// One report per workspace folder, re-read when a file it depends on changes (debounced, by
// folder), with one change event: the shape the BMAD v6 sprint (sprintModel.ts) and the v7 ticket
// tree (ticketTreeModel.ts) share. A kind says which files concern it and how a folder is read.
import * as vscode from 'vscode';
import { errorMessage, type Problem } from '../core/index';
import { Disposable } from './disposable';
import type { ExtensionModel } from './model';

const IGNORE = /[\\/](node_modules|\.git|\.waymark)[\\/]/;
const DEBOUNCE_MS = 250;

export abstract class RootReports<R extends { root: string; problems: Problem[] }> extends Disposable {
  protected readonly byRoot = new Map<string, R>();
  private readonly emitter = this.register(new vscode.EventEmitter<void>());
  readonly onDidChange = this.emitter.event;
  private timer?: NodeJS.Timeout;
  private readonly dirtyRoots = new Set<string>();
  /** Number of reads, for tests and the log. */
  loads = 0;

  /** `glob`: the files the watcher reports; `tag`: the log's component tag. */
  constructor(protected readonly c: ExtensionModel, glob: string, private readonly tag: string) {
    super();
    const w = this.register(vscode.workspace.createFileSystemWatcher(glob));
    this.register(w.onDidChange((u) => this.queue(u)));
    this.register(w.onDidCreate((u) => this.queue(u)));
    this.register(w.onDidDelete((u) => this.queue(u)));
    this.register(c.onDidChange((e) => (e.what === 'roots' || e.what === 'settings') && this.reloadAll()));
    this.register({ dispose: () => this.timer && clearTimeout(this.timer) });
    this.reloadAll();
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
    for (const r of this.c.roots) this.dirtyRoots.add(r);
    for (const r of [...this.byRoot.keys()]) if (!this.c.roots.includes(r)) this.byRoot.delete(r);
    this.flushSoon(0);
  }

  private queue(uri: vscode.Uri): void {
    if (uri.scheme !== 'file' || IGNORE.test(uri.fsPath)) return;
    const root = this.c.rootFor(uri.fsPath);
    if (!root || !this.concerns(uri.fsPath, root)) return;
    this.dirtyRoots.add(root);
    this.flushSoon(DEBOUNCE_MS);
  }

  private flushSoon(ms: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.flush(), ms);
  }

  /** Re-reads the folders that changed. */
  flush(): void {
    this.timer = undefined;
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
    if (roots.length && !this.isDisposed) this.emitter.fire();
  }
}
