// Inline decorations in workflow files (completed steps, current step, gate, status) and
// Explorer badges for workflow files.
import * as vscode from 'vscode';
import type { WorkflowState } from '../core/index';
import { Disposable } from './disposable';
import type { ExtensionModel } from './model';
import { findKey, frontmatterLayout } from './frontmatterKeys';
import { STATUS_LABELS, activeStep, gateFor, gateLabel, progress, statusKey } from './presentation';

const STATUS_COLORS: Record<string, string> = {
  in_progress: 'charts.blue',
  blocked: 'errorForeground',
  created: 'descriptionForeground',
  completed: 'testing.iconPassed',
  archived: 'disabledForeground',
  unknown: 'problemsWarningIcon.foreground',
};

const BADGES: Record<string, string> = { in_progress: '◐', blocked: '⊘', created: '○', completed: '✓', archived: '▪', unknown: '?' };

function toRange(r: { start: { line: number; character: number }; end: { line: number; character: number } }): vscode.Range {
  return new vscode.Range(r.start.line, r.start.character, r.end.line, r.end.character);
}

/** What one render put in an editor (none: `undefined`, decorations cleared). */
export interface RenderedDecorations {
  done: number;
  current?: string;
  notes: string[];
  status?: string;
}

export class Decorations extends Disposable implements vscode.FileDecorationProvider {
  private readonly fileEmitter = this.register(new vscode.EventEmitter<vscode.Uri | vscode.Uri[] | undefined>());
  readonly onDidChangeFileDecorations = this.fileEmitter.event;
  private readonly rendered = this.register(new vscode.EventEmitter<{ file: string; what?: RenderedDecorations }>());
  /** Fired after each render of an editor (the test API keeps the last per file). */
  readonly onDidRender = this.rendered.event;
  private readonly done = vscode.window.createTextEditorDecorationType({
    color: new vscode.ThemeColor('testing.iconPassed'),
    after: { contentText: ' ✓', color: new vscode.ThemeColor('testing.iconPassed') },
  });
  private readonly current = vscode.window.createTextEditorDecorationType({
    backgroundColor: new vscode.ThemeColor('editor.wordHighlightStrongBackground'),
    borderRadius: '3px',
    fontWeight: 'bold',
  });
  private readonly note = vscode.window.createTextEditorDecorationType({
    after: { color: new vscode.ThemeColor('editorCodeLens.foreground'), margin: '0 0 0 1.5em', fontStyle: 'italic' },
    rangeBehavior: vscode.DecorationRangeBehavior.ClosedClosed,
  });
  private readonly statusTypes = new Map<string, vscode.TextEditorDecorationType>();

  constructor(private readonly c: ExtensionModel) {
    super();
    for (const [status, color] of Object.entries(STATUS_COLORS)) {
      this.statusTypes.set(status, vscode.window.createTextEditorDecorationType({ color: new vscode.ThemeColor(color), fontWeight: 'bold' }));
    }
    for (const t of [this.done, this.current, this.note, ...this.statusTypes.values()]) this.register(t);
    this.register(vscode.window.registerFileDecorationProvider(this));
    this.register(
      c.onDidChange((e) => {
        if (e.what === 'leases' || e.what === 'trust') return;
        this.fileEmitter.fire(undefined);
        this.renderAll();
      }),
    );
    this.register(vscode.window.onDidChangeVisibleTextEditors(() => this.renderAll()));
    this.register(
      vscode.workspace.onDidChangeTextDocument((e) => {
        for (const ed of vscode.window.visibleTextEditors) if (ed.document === e.document) this.render(ed);
      }),
    );
    this.renderAll();
  }

  private enabled(): boolean {
    return this.c.settings.decorationsEnabled;
  }

  provideFileDecoration(uri: vscode.Uri): vscode.FileDecoration | undefined {
    if (uri.scheme !== 'file' || !this.enabled()) return undefined;
    const s = this.c.get(uri.fsPath);
    if (!s) return undefined;
    // Where the project reads it (a spec kept in archive/ is archived), as the Workflows view groups it.
    const standing = this.c.standing(s);
    const key = standing?.status ?? statusKey(s);
    const errors = this.c.problemsFor(s.file).some((p) => p.severity === 'error');
    const d = new vscode.FileDecoration(BADGES[key] ?? '?', `Waymark: ${s.workflow} · ${STATUS_LABELS[key] ?? key}${standing ? ` (${standing.message})` : ''} · ${progress(s)}${s.stale ? ' · stale' : ''}`);
    if (key === 'blocked') d.color = new vscode.ThemeColor('list.errorForeground');
    else if (errors || s.stale) d.color = new vscode.ThemeColor('list.warningForeground');
    return d;
  }

  renderAll(): void {
    for (const ed of vscode.window.visibleTextEditors) this.render(ed);
  }

  render(editor: vscode.TextEditor): void {
    const doc = editor.document;
    if (doc.uri.scheme !== 'file') return;
    const s = this.c.get(doc.uri.fsPath);
    const clear = () => {
      for (const t of [this.done, this.current, this.note, ...this.statusTypes.values()]) editor.setDecorations(t, []);
      this.rendered.fire({ file: doc.uri.fsPath });
    };
    if (!s || !this.enabled()) return clear();
    const layout = frontmatterLayout(doc.getText());
    if (!layout) return clear();
    const doneRanges: vscode.Range[] = [];
    const completed = findKey(layout, 'stepsCompleted');
    for (const item of completed?.items ?? []) doneRanges.push(toRange(item.range));
    const notes: vscode.DecorationOptions[] = [];
    const noteAt = (line: number, text: string) => {
      const end = doc.lineAt(line).range.end;
      notes.push({ range: new vscode.Range(end, end), renderOptions: { after: { contentText: text } } });
    };
    const step = activeStep(s);
    const currentRanges: vscode.Range[] = [];
    const currentKey = findKey(layout, 'currentStep', 'current_step');
    if (currentKey?.valueRange) {
      currentRanges.push(toRange(currentKey.valueRange));
      noteAt(currentKey.keyRange.start.line, this.stepNote(s, step));
    } else {
      const last = findKey(layout, 'lastStep') ?? completed;
      if (last) noteAt(last.keyRange.end.line, s.nextStep ? `next: ${s.nextStep} · ${progress(s)}` : `all ${s.steps.length} steps done`);
    }
    if (completed && currentKey?.keyRange.start.line !== completed.keyRange.start.line) {
      noteAt(completed.valueRange?.end.line ?? completed.keyRange.start.line, `${progress(s)} done`);
    }
    const statusEntry = findKey(layout, 'status');
    const key = statusKey(s);
    for (const [status, type] of this.statusTypes) {
      editor.setDecorations(type, status === key && statusEntry?.valueRange ? [toRange(statusEntry.valueRange)] : []);
    }
    if (statusEntry && s.status === 'blocked' && s.blockedReason) noteAt(statusEntry.keyRange.start.line, `blocked: ${s.blockedReason}`);
    if (s.stale && statusEntry) noteAt(statusEntry.keyRange.start.line, 'stale: showing the last good state');
    editor.setDecorations(this.done, doneRanges);
    editor.setDecorations(this.current, currentRanges);
    editor.setDecorations(this.note, notes);
    this.rendered.fire({ file: doc.uri.fsPath, what: { done: doneRanges.length, current: step, notes: notes.map((n) => String(n.renderOptions?.after?.contentText ?? '')), status: key } });
  }

  private stepNote(s: WorkflowState, step: string | undefined): string {
    if (!step) return progress(s);
    const def = s.steps.find((x) => x.id === step);
    const gate = gateFor(s, step);
    const parts = [def ? `step ${def.index} of ${s.steps.length}` : 'not a step of this workflow', `${progress(s)} done`];
    if (gate) parts.push(`gate ${gateLabel(gate)}`);
    return `◀ ${parts.join(' · ')}`;
  }
}
