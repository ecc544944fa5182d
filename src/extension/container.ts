// Owns the state core and every feature; everything it creates is disposed with it.
import * as path from 'node:path';
import * as vscode from 'vscode';
import { createStateCore } from '../core/index';
import type { StateCore, WriteGuard } from '../core/index';
import { WaymarkError, errorMessage } from '../core/index';
import type { Problem, WorkflowState } from '../core/index';
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
    this.core = createStateCore({
      roots: this.roots,
      logger: log,
      actor: cfg.get<string>('actor', 'vscode') || 'vscode',
      configOverrides: globs.length && vscode.workspace.isTrusted ? { workflows: globs } : undefined,
      guards: [trustGuard],
    });
    this.disposables.push(
      this.changed,
      this.core.onDidChange(() => this.changed.fire()),
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
      this.log.info(`[scan] ${result.workflows.length} workflow(s), ${result.files} file(s), ${this.core.problems().length} problem(s) in ${Date.now() - started} ms`);
      for (const s of result.skipped) this.log.warn(`[scan] skipped ${s.file}: ${s.reason}${s.detail ? ` (${s.detail})` : ''}`);
    };
    try {
      if (withProgress) await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: 'Waymark: scanning workflows' }, work);
      else await work();
    } finally {
      void vscode.commands.executeCommand('setContext', CONTEXT.scanning, false);
      this.updateContext();
      this.changed.fire();
    }
  }

  states(): WorkflowState[] {
    return this.core.list();
  }

  get(file: string): WorkflowState | undefined {
    return this.core.get(file);
  }

  problemsFor(file: string): Problem[] {
    return this.core.problems().filter((p) => p.file === file);
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
    const states = this.core.list();
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
