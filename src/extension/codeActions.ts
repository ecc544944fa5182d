// Quick fixes for every problem the core marks as fixable (Problem.data.fix); applied by
// core.applyFix through the same guarded write path as every other change.
import * as vscode from 'vscode';
import { COMMANDS } from './constants';
import { toRange } from './diagnostics';
import { fixTitle } from './hovers';
import type { ExtensionModel } from './model';

export class CodeActions implements vscode.CodeActionProvider {
  static readonly metadata: vscode.CodeActionProviderMetadata = { providedCodeActionKinds: [vscode.CodeActionKind.QuickFix] };

  constructor(private readonly c: ExtensionModel) {}

  provideCodeActions(doc: vscode.TextDocument, range: vscode.Range | vscode.Selection, ctx: vscode.CodeActionContext): vscode.CodeAction[] {
    if (doc.uri.scheme !== 'file') return [];
    const file = doc.uri.fsPath;
    const out: vscode.CodeAction[] = [];
    const seen = new Set<string>();
    const candidates = this.c.problemsFor(file).filter((p) => p.data?.fix && toRange(p.range).intersection(range) !== undefined);
    for (const p of candidates) {
      const key = `${p.code}:${JSON.stringify(p.data)}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const action = new vscode.CodeAction(fixTitle(p), vscode.CodeActionKind.QuickFix);
      action.diagnostics = ctx.diagnostics.filter((d) => d.code === p.code && d.range.isEqual(toRange(p.range)));
      // A gate verdict is a reviewer's decision: its fix records one through the gate command.
      action.command = p.data?.fix === 'recordGate' || p.data?.fix === 'createGate'
        ? { command: COMMANDS.gatePass, title: action.title, arguments: [{ file, step: p.data.step }] }
        : { command: COMMANDS.applyFix, title: action.title, arguments: [{ file, problem: p }] };
      action.isPreferred = candidates.length === 1;
      if (!this.c.canWrite) action.disabled = { reason: 'This workspace is not trusted: Waymark changes no file in Restricted Mode.' };
      out.push(action);
    }
    return out;
  }
}
