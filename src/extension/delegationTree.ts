// The Delegation view: chains from each root down by parent_id. Links the core reports as
// broken (orphans, cycles, depth mismatch) are shown as such, never hidden.
import * as vscode from 'vscode';
import type { Problem, WorkflowState } from '../core/index';
import { COMMANDS, VIEWS } from './constants';
import { Disposable } from './disposable';
import type { ExtensionModel } from './model';
import { DELEGATION_CODE, STATUS_LABELS, progress, statusIcon } from './presentation';
import { treeStatus } from './treeStatus';

export type DelegationNode = { kind: 'delegation'; state: WorkflowState; depth: number; path: string[] } | { kind: 'broken' };


export function delegationProblems(c: ExtensionModel, file: string): Problem[] {
  return c.problemsFor(file).filter((p) => DELEGATION_CODE.test(p.code));
}

export class DelegationTree extends Disposable implements vscode.TreeDataProvider<DelegationNode> {
  private readonly emitter = this.register(new vscode.EventEmitter<DelegationNode | undefined>());
  readonly onDidChangeTreeData = this.emitter.event;
  readonly view: vscode.TreeView<DelegationNode>;

  constructor(private readonly c: ExtensionModel) {
    super();
    this.view = this.register(vscode.window.createTreeView(VIEWS.delegation, { treeDataProvider: this, showCollapseAll: true }));
    // (`project`: the sprints read again can move a workflow's standing.)
    this.register(c.onDidChange((e) => (e.what === 'states' || e.what === 'roots' || e.what === 'project') && this.emitter.fire(undefined)));
  }

  private cache?: { from: WorkflowState[]; delegated: WorkflowState[]; children: Map<string, WorkflowState[]> };

  /** Delegated workflows and their children by `root_id` + `parent_id`, once per model change. */
  private graph() {
    const states = this.c.states();
    if (this.cache?.from === states) return this.cache;
    const delegated = states.filter((s) => s.delegation);
    const children = new Map<string, WorkflowState[]>();
    for (const s of delegated) {
      const d = s.delegation!;
      if (!d.parent_id) continue;
      const key = `${d.root_id}\u0000${d.parent_id}`;
      const list = children.get(key);
      if (list) list.push(s);
      else children.set(key, [s]);
    }
    for (const list of children.values()) list.sort((a, b) => a.workflow.localeCompare(b.workflow));
    this.cache = { from: states, delegated, children };
    return this.cache;
  }

  private delegated(): WorkflowState[] {
    return this.graph().delegated;
  }

  /** Workflows no root reaches (orphans, cycles). */
  private unreachable(): WorkflowState[] {
    const all = this.delegated();
    const reached = new Set<string>();
    const visit = (s: WorkflowState, seen: Set<string>) => {
      if (seen.has(s.file)) return;
      seen.add(s.file);
      reached.add(s.file);
      for (const child of this.childrenOf(s)) visit(child, seen);
    };
    for (const r of this.roots()) visit(r, new Set());
    return all.filter((s) => !reached.has(s.file));
  }

  private roots(): WorkflowState[] {
    return this.delegated()
      .filter((s) => !s.delegation!.parent_id)
      .sort((a, b) => a.workflow.localeCompare(b.workflow));
  }

  private childrenOf(s: WorkflowState): WorkflowState[] {
    const d = s.delegation!;
    return (this.graph().children.get(`${d.root_id}\u0000${d.id}`) ?? []).filter((c) => c.file !== s.file);
  }

  getChildren(node?: DelegationNode): DelegationNode[] {
    if (!node) {
      const out: DelegationNode[] = this.roots().map((state) => ({ kind: 'delegation', state, depth: 0, path: [state.file] }));
      if (this.unreachable().length) out.push({ kind: 'broken' });
      return out;
    }
    if (node.kind === 'broken') return this.unreachable().map((state) => ({ kind: 'delegation', state, depth: -1, path: [state.file] }));
    if (node.depth < 0) return [];
    return this.childrenOf(node.state)
      .filter((child) => !node.path.includes(child.file))
      .map((state) => ({ kind: 'delegation', state, depth: node.depth + 1, path: [...node.path, state.file] }));
  }

  getTreeItem(node: DelegationNode): vscode.TreeItem {
    if (node.kind === 'broken') {
      const item = new vscode.TreeItem('Broken links', vscode.TreeItemCollapsibleState.Expanded);
      item.description = 'parent missing or cycle';
      item.iconPath = new vscode.ThemeIcon('debug-disconnect', new vscode.ThemeColor('errorForeground'));
      item.id = 'delegation:broken';
      item.contextValue = 'waymark.delegationBroken';
      return item;
    }
    const { state } = node;
    const d = state.delegation!;
    const problems = delegationProblems(this.c, state.file);
    const hasChildren = node.depth >= 0 && this.childrenOf(state).some((c) => !node.path.includes(c.file));
    const item = new vscode.TreeItem(d.agent ? `${d.agent}` : d.id, hasChildren ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.None);
    const shown = treeStatus(state, this.c.standing(state));
    const parts = [shown.note ?? STATUS_LABELS[shown.status] ?? shown.status, progress(state), `depth ${d.depth}`];
    if (node.depth >= 0 && d.depth !== node.depth) parts.push(`⚠ depth should be ${node.depth}`);
    if (node.depth < 0) parts.push(d.parent_id ? `⚠ parent ${d.parent_id} not found` : '⚠ cycle');
    item.description = parts.join(' · ');
    item.iconPath = problems.length || node.depth < 0 ? new vscode.ThemeIcon('warning', new vscode.ThemeColor('problemsWarningIcon.foreground')) : node.depth === 0 ? new vscode.ThemeIcon('type-hierarchy') : statusIcon(shown.status);
    item.id = `delegation:${node.path.join('>')}`;
    item.contextValue = `waymark.delegation${problems.length ? '.problems' : ''}`;
    const md = new vscode.MarkdownString(undefined, true);
    md.appendMarkdown(`**${state.workflow}** (\`${this.c.relative(state.file)}\`)${d.agent ? ` (agent \`${d.agent}\`)` : ''}\n\n`);
    md.appendMarkdown(`id \`${d.id}\` · parent \`${d.parent_id ?? '—'}\` · root \`${d.root_id}\` · depth ${d.depth}\n\n`);
    md.appendMarkdown(`chain: ${d.chain_path.map((x) => `\`${x}\``).join(' → ')}\n\n`);
    for (const p of problems) md.appendMarkdown(`$(warning) ${p.message}\n\n`);
    item.tooltip = md;
    item.resourceUri = vscode.Uri.file(state.file);
    item.command = { command: COMMANDS.openFile, title: 'Open', arguments: [{ file: state.file, key: 'delegation' }] };
    return item;
  }

  getParent(): undefined {
    return undefined;
  }

}
