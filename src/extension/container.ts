// Owns the state core and every feature; everything it creates is disposed with it.
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { StateCore, WriteGuard } from '../core/index';
import { createStandardStateCore } from '../core/standardCore';
import { WaymarkError, errorMessage } from '../core/index';
import type { ChangeEvent, Problem, WorkflowState } from '../core/index';
import { CONFIG_SECTION, CONTEXT } from './constants';

export interface LastError {
  action: string;
  reason?: string;
  message: string;
}

export class Container implements vscode.Disposable {
  readonly core: StateCore;
  readonly roots: string[];
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
    this.roots = (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath);
    const cfg = vscode.workspace.getConfiguration(CONFIG_SECTION);
    const globs = cfg.get<string[]>('workflowGlobs', []);
    const trustGuard: WriteGuard = (ctx) => {
      if (!this.canWrite()) throw untrustedError(ctx.operation, ctx.file);
    };
    // The same write path as the CLI: orchestrator leases refuse our writes too, every write
    // lands in the events log and (when enabled) feeds the memory tiers.
    this.core = createStandardStateCore({
      roots: this.roots,
      logger: log,
      actor: cfg.get<string>('actor', 'vscode') || 'vscode',
      configOverrides: globs.length && vscode.workspace.isTrusted ? { include: globs } : undefined,
      guards: [trustGuard],
      memory: cfg.get<boolean>('memory.consolidateOnWrite', true),
      origin: 'vscode',
    });
    this.disposables.push(
      this.changed,
      this.core.onDidChange((e) => void this.onCoreChange(e)),
      vscode.workspace.onDidGrantWorkspaceTrust(() => this.updateContext()),
    );
    this.updateContext();
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
      const result = await this.core.scan();
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
    this.core.dispose();
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
