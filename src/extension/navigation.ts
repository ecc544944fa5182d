// Opening things: a workflow file at a state key or step entry (positions from the YAML parser),
// read-only virtual documents (history), and the diff of a conflict.
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { WorkflowState } from '../core/index';
import { Disposable } from './disposable';
import { findKey, frontmatterLayout } from './frontmatterKeys';
import type { ExtensionModel } from './model';
import { activeStep } from './presentation';

const STATE_SCHEME = 'waymark-state';

export class Navigator extends Disposable {
  private readonly virtualDocs = new Map<string, string>();
  private docSeq = 0;

  constructor(private readonly model: ExtensionModel) {
    super();
    this.register(vscode.workspace.registerTextDocumentContentProvider(STATE_SCHEME, { provideTextDocumentContent: (uri) => this.virtualDocs.get(uri.query) ?? '' }));
  }

  /** Opens a workflow file at the key (or step entry) the caller names. */
  async open(args: { file?: string; step?: string; key?: string }): Promise<vscode.TextEditor | undefined> {
    if (!args.file) return undefined;
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(args.file));
    const layout = frontmatterLayout(doc.getText());
    let range: vscode.Range | undefined;
    if (args.step) {
      const state = this.model.get(args.file);
      const current = findKey(layout, 'currentStep', 'current_step');
      const completed = findKey(layout, 'stepsCompleted');
      const steps = findKey(layout, 'steps');
      const item =
        (state && activeStep(state) === args.step && current?.valueRange) ||
        completed?.items?.find((i) => i.value === args.step || i.value.replace(/\.md$/, '') === args.step)?.range ||
        steps?.items?.find((i) => i.value === args.step)?.range ||
        current?.keyRange;
      if (item) range = new vscode.Range(item.start.line, item.start.character, item.end.line, item.end.character);
    } else if (args.key) {
      const k = findKey(layout, args.key, args.key === 'currentStep' ? 'current_step' : args.key) ?? findKey(layout, 'status');
      if (k) range = new vscode.Range(k.keyRange.start.line, k.keyRange.start.character, k.keyRange.end.line, k.keyRange.end.character);
    }
    return vscode.window.showTextDocument(doc, { selection: range, preview: true });
  }

  async showVirtual(name: string, text: string, language?: string): Promise<vscode.TextDocument> {
    const id = `${++this.docSeq}`;
    this.virtualDocs.set(id, text);
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.from({ scheme: STATE_SCHEME, path: `/${name}`, query: id }));
    if (language) await vscode.languages.setTextDocumentLanguage(doc, language);
    await vscode.window.showTextDocument(doc, { preview: true });
    return doc;
  }

  /** Diff of the state a command was based on and the state on disk now. */
  async showConflict(file: string, seen: WorkflowState | undefined): Promise<void> {
    const now = await this.model.core.reload(file);
    const left = `${++this.docSeq}`;
    const right = `${++this.docSeq}`;
    this.virtualDocs.set(left, stateText(seen));
    this.virtualDocs.set(right, stateText(now));
    const base = path.basename(file);
    await vscode.commands.executeCommand(
      'vscode.diff',
      vscode.Uri.from({ scheme: STATE_SCHEME, path: `/${base}.seen.yaml`, query: left }),
      vscode.Uri.from({ scheme: STATE_SCHEME, path: `/${base}.now.yaml`, query: right }),
      `${base}: state you acted on ↔ state on disk`,
    );
  }
}

function stateText(s: WorkflowState | undefined): string {
  if (!s) return '# (not a workflow file any more)\n';
  const fields = {
    workflow: s.workflow,
    status: s.rawStatus ?? s.status,
    currentStep: s.currentStep,
    stepsCompleted: s.stepsCompleted,
    lastStep: s.lastStep,
    scope: s.scope,
    blockedReason: s.blockedReason,
    delegation: s.delegation,
    stateHash: s.stateHash,
  };
  return JSON.stringify(fields, null, 2) + '\n';
}
