// Every core Problem in the Problems panel, with its exact range and code. Unsaved editors are
// validated as typed (core.parseText), so the panel matches what is on screen.
import * as vscode from 'vscode';
import type { Problem } from '../core/index';
import { errorMessage } from '../core/index';
import { Disposable } from './disposable';
import type { ExtensionModel } from './model';
import { DELEGATION_CODE } from './presentation';

export function toRange(r: Problem['range']): vscode.Range {
  return new vscode.Range(r.start.line, r.start.character, r.end.line, r.end.character);
}

export function toDiagnostic(p: Problem): vscode.Diagnostic {
  const severity = p.severity === 'error' ? vscode.DiagnosticSeverity.Error : p.severity === 'warning' ? vscode.DiagnosticSeverity.Warning : vscode.DiagnosticSeverity.Information;
  const d = new vscode.Diagnostic(toRange(p.range), p.message, severity);
  d.source = 'waymark';
  d.code = p.code;
  return d;
}

export class Diagnostics extends Disposable {
  readonly collection = this.register(vscode.languages.createDiagnosticCollection('waymark'));
  /** Problems of unsaved buffers, by file; they win over the saved file's. */
  private readonly unsaved = new Map<string, Problem[]>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  /** The Problem behind each diagnostic, for code actions. */
  private readonly byDiagnostic = new WeakMap<vscode.Diagnostic, Problem>();

  constructor(private readonly c: ExtensionModel) {
    super();
    this.register({ dispose: () => this.timers.forEach((t) => clearTimeout(t)) });
    this.register(c.onDidChange((e) => (e.what === 'states' || e.what === 'roots' || e.what === 'project') && this.refresh()));
    this.register(vscode.workspace.onDidChangeTextDocument((e) => this.onEdit(e.document)));
    this.register(vscode.workspace.onDidSaveTextDocument((d) => this.dropUnsaved(d.uri.fsPath)));
    this.register(vscode.workspace.onDidCloseTextDocument((d) => this.dropUnsaved(d.uri.fsPath)));
  }

  problemFor(d: vscode.Diagnostic): Problem | undefined {
    return this.byDiagnostic.get(d);
  }

  refresh(): void {
    const byFile = new Map<string, Problem[]>();
    // The file's own problems, then the project's (dependsOn/after, cycles, stalled work).
    for (const p of [...this.c.problems(), ...this.c.project.problems()]) {
      const list = byFile.get(p.file) ?? [];
      list.push(p);
      byFile.set(p.file, list);
    }
    for (const [file, problems] of this.unsaved) byFile.set(file, problems);
    this.collection.clear();
    for (const [file, problems] of byFile) {
      this.collection.set(
        vscode.Uri.file(file),
        problems.map((p) => {
          const d = toDiagnostic(p);
          this.byDiagnostic.set(d, p);
          return d;
        }),
      );
    }
  }

  private onEdit(doc: vscode.TextDocument): void {
    if (doc.uri.scheme !== 'file' || !doc.isDirty) return;
    const file = doc.uri.fsPath;
    if (!this.c.get(file)) return;
    if (!this.c.settings.diagnosticsUnsavedChanges) return;
    clearTimeout(this.timers.get(file));
    this.timers.set(
      file,
      setTimeout(() => {
        this.timers.delete(file);
        const text = doc.getText();
        this.c.core.parseText(file, text).then(
          (r) => {
            if (doc.getText() !== text || !doc.isDirty) return;
            // Cross-file problems (delegation) of the saved state still apply.
            const cross = this.c.problemsFor(file).filter((p) => !(r.state?.problems ?? r.problems).some((q) => q.code === p.code));
            this.unsaved.set(file, [...r.problems, ...cross.filter((p) => DELEGATION_CODE.test(p.code)), ...this.c.project.problemsFor(file)]);
            this.refresh();
          },
          (e) => this.c.log.warn(`[diagnostics] could not validate the unsaved ${file}: ${errorMessage(e)}`),
        );
      }, 300),
    );
  }

  private dropUnsaved(file: string): void {
    clearTimeout(this.timers.get(file));
    this.timers.delete(file);
    if (this.unsaved.delete(file)) this.refresh();
  }
}
