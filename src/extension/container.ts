// Owns the state core and every feature; everything it creates is disposed with it.
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { StateCore, WriteGuard } from '../core/index';
import { createStateCore, WaymarkError, errorMessage } from '../core/index';
import type { ChangeEvent, Problem, WorkflowState } from '../core/index';
import { CONFIG_SECTION, CONTEXT } from './constants';

export interface LastError {
  action: string;
  reason?: string;
  message: string;
}

/** The file-scheme workspace folders, in workspace order. */
function workspaceRoots(): string[] {
  return (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath);
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** Settings that shape the state core itself: a change makes a new core and a rescan. */
const CORE_SETTINGS = ['workflowGlobs', 'actor', 'memory.consolidateOnWrite'].map((k) => `${CONFIG_SECTION}.${k}`);

export class Container implements vscode.Disposable {
  /**
   * The state core every feature talks to. It stays the same object for the container's life:
   * when the workspace folders (or the settings that shape the core) change, a new core is
   * made behind it and every call and change event goes to the new one.
   */
  readonly core: StateCore;
  private current!: StateCore;
  private currentSubscription?: { dispose(): void };
  private currentRoots: string[] = [];
  /** Bumped when the core is replaced; a scan that started on an older core is discarded. */
  private generation = 0;
  private readonly coreChanged = new vscode.EventEmitter<ChangeEvent>();
  private readonly rootsChanged = new vscode.EventEmitter<readonly string[]>();
  /** Fired after the workspace folders changed and a new core was made (before its scan). */
  readonly onDidChangeRoots = this.rootsChanged.event;
  private reconfiguring: Promise<void> = Promise.resolve();
  private readonly disposables: vscode.Disposable[] = [];
  private readonly changed = new vscode.EventEmitter<void>();
  /** Fired after the model changed (scan done, a file reloaded or removed). */
  readonly onDidChangeModel = this.changed.event;
  private trustOverride: boolean | undefined;
  private firstScan?: Promise<void>;
  lastError?: LastError;
  lastInfo?: string;
  /** Why the last scan failed, if it did (shown in the log; read by the test snapshot). */
  lastScanError?: string;
  scans = 0;
  /** How many times the core was replaced (folders or settings changed); read by the tests. */
  coreReplacements = 0;
  /** The last state that parsed, per file. */
  private readonly lastGood = new Map<string, WorkflowState>();
  /**
   * Files that exist but no longer read as workflows (an agent mid-write, a YAML error): the
   * views keep their last good state, marked stale, with the problems of the current text.
   */
  private readonly staleStates = new Map<string, { state: WorkflowState; problems: Problem[] }>();

  constructor(
    readonly context: vscode.ExtensionContext,
    readonly log: vscode.LogOutputChannel,
  ) {
    this.core = this.stableCore();
    const roots = workspaceRoots();
    this.replaceCore(this.makeCore(roots), roots);
    this.disposables.push(
      this.changed,
      this.coreChanged,
      this.rootsChanged,
      this.coreChanged.event((e) => void this.onCoreChange(e)),
      vscode.workspace.onDidGrantWorkspaceTrust(() => {
        this.updateContext();
        // Settings-based globs apply only in a trusted workspace.
        if (vscode.workspace.getConfiguration(CONFIG_SECTION).get<string[]>('workflowGlobs', []).length) this.reconfigure('workspace trusted', true);
      }),
      // Folders can arrive after activation (VS Code for the Web reads a remote .code-workspace
      // file only once its file system is up) and users add and remove folders at any time.
      vscode.workspace.onDidChangeWorkspaceFolders(() => this.reconfigure('workspace folders changed')),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (CORE_SETTINGS.some((k) => e.affectsConfiguration(k))) this.reconfigure('settings changed', true);
      }),
    );
    this.updateContext();
  }

  /** Absolute paths of the workspace folders the core reads (file scheme only). */
  get roots(): string[] {
    return this.currentRoots;
  }

  /** A StateCore that forwards to whichever core is current. */
  private stableCore(): StateCore {
    return new Proxy({} as StateCore, {
      get: (_target, prop) => {
        if (prop === 'roots') return this.currentRoots;
        if (prop === 'onDidChange') return (listener: (e: ChangeEvent) => void) => this.coreChanged.event(listener);
        // The container owns the core's life.
        if (prop === 'dispose') return () => undefined;
        const value = Reflect.get(this.current, prop) as unknown;
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(this.current) : value;
      },
    });
  }

  private makeCore(roots: string[]): StateCore {
    const cfg = vscode.workspace.getConfiguration(CONFIG_SECTION);
    const globs = cfg.get<string[]>('workflowGlobs', []);
    const trustGuard: WriteGuard = (ctx) => {
      if (!this.canWrite()) throw untrustedError(ctx.operation, ctx.file);
    };
    // The same write path as the CLI: orchestrator leases refuse our writes too, every write
    // lands in the events log and (when enabled) feeds the memory tiers.
    return createStateCore({
      roots,
      logger: this.log,
      actor: cfg.get<string>('actor', 'vscode') || 'vscode',
      configOverrides: globs.length && vscode.workspace.isTrusted ? { include: globs } : undefined,
      guards: [trustGuard],
      memory: { consolidateOnWrite: cfg.get<boolean>('memory.consolidateOnWrite', true) },
      origin: 'vscode',
    });
  }

  /** Puts `next` in place of the current core; the model starts from `scanned` (its first scan). */
  private replaceCore(next: StateCore, roots: string[], scanned?: WorkflowState[]): void {
    const previous = this.current;
    this.currentSubscription?.dispose();
    this.current = next;
    this.currentRoots = roots;
    this.generation++;
    this.currentSubscription = next.onDidChange((e) => {
      for (const ch of e.changes) this.touchedWhileScanning?.add(ch.file);
      this.coreChanged.fire(e);
    });
    this.lastGood.clear();
    this.staleStates.clear();
    for (const s of scanned ?? []) this.lastGood.set(s.file, s);
    this.index = undefined;
    previous?.dispose();
  }

  /** Files the current core reported changed while a replacement was being scanned. */
  private touchedWhileScanning?: Set<string>;

  /**
   * Makes a new core for the current folders and settings, scans it, and only then puts it in
   * place, so the views keep showing the old model meanwhile (no empty flash). Without `force`
   * nothing happens when the folders are unchanged. Calls are serialized.
   */
  reconfigure(reason: string, force = false): Promise<void> {
    this.reconfiguring = this.reconfiguring.then(async () => {
      const roots = workspaceRoots();
      if (!force && sameList(roots, this.currentRoots)) return;
      const foldersChanged = !sameList(roots, this.currentRoots);
      this.log.info(`[roots] ${reason}: ${roots.length ? roots.join(', ') : '(no folder)'}`);
      const started = Date.now();
      const next = this.makeCore(roots);
      const touched = (this.touchedWhileScanning = new Set<string>());
      let scanned: WorkflowState[] | undefined;
      void vscode.commands.executeCommand('setContext', CONTEXT.scanning, true);
      try {
        const result = await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: 'Waymark: scanning workflows' }, () => next.scan());
        scanned = result.workflows;
        this.lastScanError = undefined;
        this.log.info(`[scan] ${result.workflows.length} workflow(s), ${result.files} file(s), ${next.problems().length} problem(s) in ${Date.now() - started} ms`);
      } catch (e) {
        this.lastScanError = errorMessage(e);
        this.log.error(`[scan] scan after ${reason} failed: ${errorMessage(e)}`);
      } finally {
        this.touchedWhileScanning = undefined;
        void vscode.commands.executeCommand('setContext', CONTEXT.scanning, false);
      }
      this.replaceCore(next, roots, scanned);
      this.coreReplacements++;
      this.scans++;
      if (foldersChanged) this.rootsChanged.fire(roots);
      // Writes and watcher reloads that went to the old core while the new one scanned.
      for (const file of touched) {
        if (!this.rootFor(file)) continue;
        try {
          if (fs.existsSync(file)) await next.reload(file);
          else next.remove(file);
        } catch (e) {
          this.log.warn(`[roots] could not re-read ${file}: ${errorMessage(e)}`);
        }
      }
      this.updateContext();
      this.changed.fire();
      // Listeners of core changes (the Memory view) hear about the new model.
      if (scanned?.length) this.coreChanged.fire({ changes: scanned.map((state) => ({ file: state.file, state })) });
    });
    return this.reconfiguring;
  }

  /** Runs the first scan once, with progress; later calls return the same promise. */
  ready(): Promise<void> {
    this.firstScan ??= this.rescan(true);
    return this.firstScan;
  }

  async rescan(withProgress = false): Promise<void> {
    const started = Date.now();
    void vscode.commands.executeCommand('setContext', CONTEXT.scanning, true);
    const work = async () => {
      const generation = this.generation;
      const result = await this.current.scan();
      if (generation !== this.generation) return; // the core was replaced meanwhile; its own scan follows
      this.lastGood.clear();
      this.staleStates.clear();
      this.index = undefined;
      for (const s of result.workflows) this.lastGood.set(s.file, s);
      this.log.info(`[scan] ${result.workflows.length} workflow(s), ${result.files} file(s), ${this.core.problems().length} problem(s) in ${Date.now() - started} ms`);
      for (const s of result.skipped) this.log.warn(`[scan] skipped ${s.file}: ${s.reason}${s.detail ? ` (${s.detail})` : ''}`);
    };
    try {
      if (withProgress) await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: 'Waymark: scanning workflows' }, work);
      else await work();
      this.lastScanError = undefined;
    } catch (e) {
      this.lastScanError = errorMessage(e);
      throw e;
    } finally {
      this.scans++;
      this.index = undefined;
      void vscode.commands.executeCommand('setContext', CONTEXT.scanning, false);
      this.updateContext();
      this.changed.fire();
    }
  }

  private async onCoreChange(e: ChangeEvent): Promise<void> {
    const generation = this.generation;
    this.index = undefined;
    for (const ch of e.changes) {
      if (!ch.removed) {
        const state = ch.state ?? this.core.get(ch.file);
        if (state && !state.stale) this.lastGood.set(ch.file, state);
        this.staleStates.delete(ch.file);
        continue;
      }
      const prev = this.lastGood.get(ch.file) ?? this.staleStates.get(ch.file)?.state;
      let text: string | undefined;
      try {
        const st = fs.statSync(ch.file);
        if (st.isFile() && st.size < 5_000_000) text = fs.readFileSync(ch.file, 'utf8');
      } catch {
        text = undefined; // deleted: forget it below
      }
      if (!prev || text === undefined) {
        this.lastGood.delete(ch.file);
        this.staleStates.delete(ch.file);
        continue;
      }
      let problems: Problem[] = [];
      try {
        problems = (await this.core.parseText(ch.file, text)).problems;
      } catch (err) {
        this.log.warn(`[model] could not validate ${ch.file}: ${errorMessage(err)}`);
      }
      if (generation !== this.generation) return; // the core was replaced meanwhile
      this.log.warn(`[model] ${this.relative(ch.file)} does not read as a workflow now; keeping its last good state (stale)`);
      this.staleStates.set(ch.file, { state: { ...prev, stale: true }, problems });
    }
    this.index = undefined;
    this.changed.fire();
  }

  /** Lookups over the current model, built once per change (views ask per node). */
  private index?: { states: WorkflowState[]; problems: Problem[]; byFile: Map<string, Problem[]>; idCounts: Map<string, number> };

  private model() {
    if (this.index) return this.index;
    const live = this.core.list();
    const states = this.staleStates.size ? [...live.filter((s) => !this.staleStates.has(s.file)), ...[...this.staleStates.values()].map((x) => x.state)] : live;
    const problems = this.core.problems();
    for (const [file, x] of this.staleStates) {
      for (const p of x.problems) if (!problems.some((q) => q.file === file && q.code === p.code && q.range.start.line === p.range.start.line)) problems.push(p);
    }
    const byFile = new Map<string, Problem[]>();
    for (const p of problems) {
      const list = byFile.get(p.file);
      if (list) list.push(p);
      else byFile.set(p.file, [p]);
    }
    const idCounts = new Map<string, number>();
    for (const s of states) idCounts.set(s.workflow, (idCounts.get(s.workflow) ?? 0) + 1);
    this.index = { states, problems, byFile, idCounts };
    return this.index;
  }

  /** The name a workflow goes by on screen: its id, or its file name when several files share the id. */
  displayName(state: WorkflowState): string {
    if ((this.model().idCounts.get(state.workflow) ?? 0) < 2) return state.workflow;
    return path.basename(state.file).replace(/\.(md|markdown)$/i, '');
  }

  states(): WorkflowState[] {
    return this.model().states;
  }

  get(file: string): WorkflowState | undefined {
    return this.staleStates.get(file)?.state ?? this.core.get(file);
  }

  /** Every problem: the core's, plus those of files shown stale. */
  problems(): Problem[] {
    return this.model().problems;
  }

  problemsFor(file: string): Problem[] {
    return this.model().byFile.get(file) ?? [];
  }

  rootFor(file: string): string | undefined {
    let best: string | undefined;
    for (const r of this.roots) if ((file === r || file.startsWith(r + path.sep)) && (!best || r.length > best.length)) best = r;
    return best;
  }

  relative(file: string): string {
    const root = this.rootFor(file);
    return root ? path.relative(root, file) : file;
  }

  /** Writes are allowed only in a trusted workspace. */
  canWrite(): boolean {
    return this.trustOverride ?? vscode.workspace.isTrusted;
  }

  assertCanWrite(action: string): void {
    if (!this.canWrite()) throw untrustedError(action);
  }

  /** Test hook: behave as if the workspace were (un)trusted; undefined restores the real state. */
  setTrustOverride(trusted: boolean | undefined): void {
    this.trustOverride = trusted;
    this.updateContext();
  }

  private updateContext(): void {
    const states = this.states();
    void vscode.commands.executeCommand('setContext', CONTEXT.active, true);
    void vscode.commands.executeCommand('setContext', CONTEXT.canWrite, this.canWrite());
    void vscode.commands.executeCommand('setContext', CONTEXT.hasWorkflows, states.length > 0);
  }

  refreshContext(): void {
    this.updateContext();
  }

  register<T extends vscode.Disposable>(d: T): T {
    this.disposables.push(d);
    return d;
  }

  dispose(): void {
    for (const d of this.disposables.splice(0).reverse()) {
      try {
        d.dispose();
      } catch (e) {
        this.log.error(`[dispose] ${errorMessage(e)}`);
      }
    }
    this.currentSubscription?.dispose();
    this.current.dispose();
  }
}

export function untrustedError(action: string, file?: string): WaymarkError {
  return new WaymarkError(
    'unavailable',
    `${action} is disabled because this workspace is not trusted. Waymark only reads in Restricted Mode; trust the folder (Manage Workspace Trust) to change workflow state.`,
    file,
    { untrusted: true },
  );
}
