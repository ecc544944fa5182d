// Above the frontmatter of a workflow file: "Resume at <step>", "Complete <step>", "Open step file".
import * as vscode from 'vscode';
import { COMMANDS } from './constants';
import { Disposable } from './disposable';
import type { ExtensionModel } from './model';
import { activeStep, gateFor, gateLabel, progress } from './presentation';

export class CodeLenses extends Disposable implements vscode.CodeLensProvider {
  private readonly emitter = this.register(new vscode.EventEmitter<void>());
  readonly onDidChangeCodeLenses = this.emitter.event;

  constructor(private readonly c: ExtensionModel) {
    super();
    this.register(c.onDidChange((e) => e.what !== 'leases' && e.what !== 'trust' && this.emitter.fire()));
  }

  provideCodeLenses(doc: vscode.TextDocument): vscode.CodeLens[] {
    if (doc.uri.scheme !== 'file' || !this.c.settings.codeLensEnabled) return [];
    const s = this.c.get(doc.uri.fsPath);
    if (!s) return [];
    const range = new vscode.Range(0, 0, 0, 0);
    const arg = { file: s.file };
    const lenses: vscode.CodeLens[] = [];
    const step = activeStep(s);
    // Set aside or finished where the project reads it (an archive/ folder, a finished epic): no step is offered.
    const standing = this.c.standing(s);
    const done = !!standing || s.status === 'completed' || s.status === 'archived' || (!s.nextStep && s.steps.length > 0);
    if (!done && (step || s.nextStep)) {
      const at = s.nextStep ?? step!;
      lenses.push(new vscode.CodeLens(range, { title: `$(debug-start) Resume at ${at}`, command: COMMANDS.resume, arguments: [arg], tooltip: 'Where to pick up, and why' }));
    }
    if (!standing && step && !s.stepsCompleted.includes(step) && s.status !== 'completed' && s.status !== 'archived') {
      const gate = gateFor(s, step);
      const title = `$(check) Complete ${step}${gate && !gate.open ? ` (gate ${gateLabel(gate)})` : ''}`;
      lenses.push(new vscode.CodeLens(range, { title, command: COMMANDS.completeStep, arguments: [{ ...arg, step, quiet: true }] }));
    }
    const def = s.steps.find((x) => x.id === (step ?? s.nextStep));
    if (def?.file) lenses.push(new vscode.CodeLens(range, { title: '$(file-symlink-file) Open step file', command: COMMANDS.openStepFile, arguments: [{ ...arg, step: def.id }] }));
    if (!lenses.length) lenses.push(new vscode.CodeLens(range, { title: `${s.workflow} · ${standing?.message ?? s.status ?? s.rawStatus ?? '?'} · ${progress(s)}`, command: COMMANDS.nextActions, arguments: [arg] }));
    return lenses;
  }
}
