// The sprint of every workspace folder (SprintModel), re-read when a ledger, story, epics or gate
// file changes, with one change event: what the Sprint view (sprintTree.ts) and the sprint
// features (sprintFeatures.ts) read.
import * as path from 'node:path';
import * as vscode from 'vscode';
import { errorMessage, loadSprint, type Problem, type SprintReport, type SprintStory } from '../core/index';
import { CONFIG_SECTION } from './constants';
import { Disposable } from './disposable';
import type { ExtensionModel } from './model';

const SPRINT_FILES = /(?:^|[\\/])(sprint-status\.ya?ml|[^\\/]*epic[^\\/]*\.md|\d+[-.]\d+[a-z]?[-.][^\\/]*\.md|[^\\/]*\.ya?ml|gate-decision[^\\/]*\.json)$/i;
const IGNORE = /[\\/](node_modules|\.git|\.waymark)[\\/]/;
const DEBOUNCE_MS = 250;

/** The sprint of every workspace folder, with one change event. */
export class SprintModel extends Disposable {
  private readonly byRoot = new Map<string, SprintReport>();
  private readonly emitter = this.register(new vscode.EventEmitter<void>());
  readonly onDidChange = this.emitter.event;
  private timer?: NodeJS.Timeout;
  private dirtyRoots = new Set<string>();
  /** Number of reloads, for tests and the log. */
  loads = 0;

  constructor(private readonly c: ExtensionModel) {
    super();
    const w = this.register(vscode.workspace.createFileSystemWatcher('**/*.{md,yaml,yml,json}'));
    this.register(w.onDidChange((u) => this.queue(u)));
    this.register(w.onDidCreate((u) => this.queue(u)));
    this.register(w.onDidDelete((u) => this.queue(u)));
    this.register(c.onDidChange((e) => (e.what === 'roots' || e.what === 'settings') && this.reloadAll()));
    this.register({ dispose: () => this.timer && clearTimeout(this.timer) });
    this.reloadAll();
  }

  reports(): SprintReport[] {
    return [...this.byRoot.values()].sort((a, b) => a.root.localeCompare(b.root));
  }

  reportFor(file: string): SprintReport | undefined {
    const root = this.c.rootFor(file);
    return root ? this.byRoot.get(root) : undefined;
  }

  /** The story a file is (story file) or the story on a ledger line. */
  storyAt(file: string, line?: number): { report: SprintReport; story: SprintStory } | undefined {
    const report = this.reportFor(file);
    if (!report) return undefined;
    const abs = path.resolve(file);
    let story = report.stories.find((s) => s.file === abs);
    if (!story && report.ledgerFiles.includes(abs) && line !== undefined) story = report.stories.find((s) => s.ledgerLine === line && (s.ledgerFile ?? report.ledgerFile) === abs);
    return story ? { report, story } : undefined;
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
    if (uri.scheme !== 'file' || IGNORE.test(uri.fsPath) || !SPRINT_FILES.test(uri.fsPath)) return;
    const root = this.c.rootFor(uri.fsPath);
    if (!root) return;
    this.dirtyRoots.add(root);
    this.flushSoon(DEBOUNCE_MS);
  }

  private flushSoon(ms: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.flush(), ms);
  }

  /** Re-reads the sprint of the folders that changed (synchronous reads of small files). */
  flush(): void {
    this.timer = undefined;
    const roots = [...this.dirtyRoots];
    this.dirtyRoots.clear();
    const settings = vscode.workspace.getConfiguration(CONFIG_SECTION);
    const staleDays = settings.get<number>('sprint.staleDays', 7);
    for (const root of roots) {
      try {
        // bmad.dir / bmad.output come from the workspace's .waymark/config.yaml, as in every face.
        const r = loadSprint(root, { staleDays });
        if (r) this.byRoot.set(root, r);
        else this.byRoot.delete(root);
        this.loads++;
      } catch (e) {
        this.c.log.error(`[sprint] ${root}: ${errorMessage(e)}`);
      }
    }
    if (roots.length && !this.isDisposed) this.emitter.fire();
  }
}
