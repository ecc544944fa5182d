// The Gates view: workflow → each gated step's gate verdict, reviewer and expiry.
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { GateState, StepDef, WorkflowState } from '../core/index';
import { COMMANDS, VIEWS } from './constants';
import { Disposable } from './disposable';
import type { ExtensionModel } from './model';
import { gateIcon, gateLabel, statusIcon } from './presentation';
import { treeStatus } from './treeStatus';

export type GatesNode = { kind: 'gateWorkflow'; state: WorkflowState } | { kind: 'gate'; state: WorkflowState; step: StepDef; gate: GateState };

export class GatesTree extends Disposable implements vscode.TreeDataProvider<GatesNode> {
  private readonly emitter = this.register(new vscode.EventEmitter<GatesNode | undefined>());
  readonly onDidChangeTreeData = this.emitter.event;
  readonly view: vscode.TreeView<GatesNode>;

  constructor(private readonly c: ExtensionModel) {
    super();
    this.view = this.register(vscode.window.createTreeView(VIEWS.gates, { treeDataProvider: this }));
    // (`project`: the sprints read again can move a workflow's standing.)
    this.register(c.onDidChange((e) => (e.what === 'states' || e.what === 'roots' || e.what === 'project') && this.refresh()));
  }

  refresh(): void {
    const closed = this.c.states().reduce((n, s) => n + Object.values(s.gates).filter((g) => !g.open).length, 0);
    this.view.description = closed ? `${closed} closed` : undefined;
    this.emitter.fire(undefined);
  }

  getChildren(node?: GatesNode): GatesNode[] {
    if (!node) {
      return this.c
        .states()
        .filter((s) => Object.keys(s.gates).length > 0)
        .sort((a, b) => a.workflow.localeCompare(b.workflow) || a.file.localeCompare(b.file))
        .map((state) => ({ kind: 'gateWorkflow', state }));
    }
    if (node.kind === 'gateWorkflow') {
      const out: GatesNode[] = [];
      for (const step of node.state.steps) {
        const gate = node.state.gates[step.id];
        if (gate) out.push({ kind: 'gate', state: node.state, step, gate });
      }
      return out;
    }
    return [];
  }

  getTreeItem(node: GatesNode): vscode.TreeItem {
    if (node.kind === 'gateWorkflow') {
      const gates = Object.values(node.state.gates);
      const closed = gates.filter((g) => !g.open).length;
      const item = new vscode.TreeItem(this.c.displayName(node.state), vscode.TreeItemCollapsibleState.Expanded);
      item.description = closed ? `${closed} of ${gates.length} closed` : `${gates.length} open`;
      if (this.c.roots.length > 1) item.description += ` · ${path.basename(node.state.root)}`;
      const shown = treeStatus(node.state, this.c.standing(node.state));
      if (shown.note) item.description += ` · ${shown.note}`;
      item.tooltip = shown.note ? `${this.c.relative(node.state.file)} (${shown.note})` : this.c.relative(node.state.file);
      item.iconPath = statusIcon(shown.status);
      item.id = `gates:${node.state.file}`;
      item.contextValue = 'waymark.gateWorkflow';
      item.command = { command: COMMANDS.openFile, title: 'Open', arguments: [{ file: node.state.file }] };
      return item;
    }
    const { gate, step, state } = node;
    const item = new vscode.TreeItem(`${step.id}: ${gateLabel(gate)}`, vscode.TreeItemCollapsibleState.None);
    const parts: string[] = [];
    if (gate.reviewer) parts.push(gate.reviewer);
    if (gate.waiver?.expires) parts.push(`expires ${gate.waiver.expires}`);
    if (gate.updated) parts.push(gate.updated.slice(0, 10));
    item.description = parts.join(' · ');
    item.iconPath = gateIcon(gate);
    item.id = `gate:${state.file}:${step.id}`;
    item.contextValue = `waymark.gate.${gate.exists ? 'exists' : 'missing'}.${gate.open ? 'open' : 'closed'}`;
    const md = new vscode.MarkdownString(undefined, true);
    md.appendMarkdown(`**Gate \`${gate.name}\`** on step \`${step.id}\` of **${state.workflow}**: ${gateLabel(gate)} — ${gate.open ? 'open, the step can be passed' : 'closed, advancing past this step is refused'}\n\n`);
    if (gate.reviewer) md.appendMarkdown(`Reviewer: ${gate.reviewer}${gate.updated ? ` · ${gate.updated}` : ''}\n\n`);
    if (gate.reason) md.appendMarkdown(`Reason: ${gate.reason}\n\n`);
    if (gate.unrecorded !== undefined) md.appendMarkdown(`Not recorded through Waymark (${gate.unrecorded}): it does not open the gate. Record the verdict with *Gate: Pass…*.\n\n`);
    if (gate.waiver) md.appendMarkdown(`Waived by ${gate.waiver.approved_by}: ${gate.waiver.reason}${gate.waiver.expires ? ` (expires ${gate.waiver.expires})` : ''}\n\n`);
    md.appendMarkdown(gate.exists ? `\`${this.c.relative(gate.file)}\`` : `No gate file yet (\`${this.c.relative(gate.file)}\`).`);
    item.tooltip = md;
    item.command = gate.exists
      ? { command: COMMANDS.gateOpen, title: 'Open gate file', arguments: [node] }
      : { command: COMMANDS.openFile, title: 'Open', arguments: [{ file: state.file, step: step.id }] };
    return item;
  }

}
