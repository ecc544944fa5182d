// The Workflows view: (folder →) status group → workflow → steps. A workflow someone else holds
// an orchestrator lease on shows a lock and the holder (Take over / Release in its menu); one
// another git worktree has ahead of this checkout says so ("2 step(s) done in feat/x").
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { StepDef, WorkflowState } from '../core/index';
import { COMMANDS, VIEWS } from './constants';
import { Disposable } from './disposable';
import { leaseMarkdown } from './leases';
import { markShort, markSentence } from './worktrees';
import type { ExtensionModel } from './model';
import { STATUS_LABELS, STATUS_ORDER, activeStep, escapeMd, gateFor, gateLabel, progress, statusIcon, statusKey, stepIcon, stepKind, stepTitle } from './presentation';

export type WorkflowsNode =
  | { kind: 'folder'; root: string }
  | { kind: 'group'; root?: string; status: string }
  | { kind: 'workflow'; state: WorkflowState }
  | { kind: 'step'; state: WorkflowState; step: StepDef };

export class WorkflowsTree extends Disposable implements vscode.TreeDataProvider<WorkflowsNode> {
  private readonly emitter = this.register(new vscode.EventEmitter<WorkflowsNode | undefined>());
  readonly onDidChangeTreeData = this.emitter.event;
  readonly view: vscode.TreeView<WorkflowsNode>;

  constructor(private readonly c: ExtensionModel) {
    super();
    this.view = this.register(vscode.window.createTreeView(VIEWS.workflows, { treeDataProvider: this, showCollapseAll: true }));
    this.register(c.onDidChange((e) => e.what !== 'settings' && e.what !== 'trust' && this.refresh()));
  }

  refresh(): void {
    const states = this.c.states();
    const active = states.filter((s) => s.status === 'in_progress' || s.status === 'blocked').length;
    this.view.badge = active ? { value: active, tooltip: `${active} workflow(s) in progress or blocked` } : undefined;
    this.emitter.fire(undefined);
  }

  getChildren(node?: WorkflowsNode): WorkflowsNode[] {
    const states = this.c.states();
    if (!node) {
      if (this.c.roots.length > 1) {
        return this.c.roots.filter((r) => states.some((s) => s.root === r)).map((root) => ({ kind: 'folder', root }));
      }
      return groups(states);
    }
    switch (node.kind) {
      case 'folder':
        return groups(states.filter((s) => s.root === node.root), node.root);
      case 'group':
        return states
          .filter((s) => statusKey(s) === node.status && (!node.root || s.root === node.root))
          .sort(byRecent)
          .map((state) => ({ kind: 'workflow', state }));
      case 'workflow':
        return node.state.steps.map((step) => ({ kind: 'step', state: node.state, step }));
      default:
        return [];
    }
  }

  getParent(node: WorkflowsNode): WorkflowsNode | undefined {
    const multi = this.c.roots.length > 1;
    switch (node.kind) {
      case 'group':
        return multi && node.root ? { kind: 'folder', root: node.root } : undefined;
      case 'workflow':
        return { kind: 'group', status: statusKey(node.state), root: multi ? node.state.root : undefined };
      case 'step':
        return { kind: 'workflow', state: node.state };
      default:
        return undefined;
    }
  }

  getTreeItem(node: WorkflowsNode): vscode.TreeItem {
    switch (node.kind) {
      case 'folder': {
        const item = new vscode.TreeItem(path.basename(node.root), vscode.TreeItemCollapsibleState.Expanded);
        item.iconPath = vscode.ThemeIcon.Folder;
        item.resourceUri = vscode.Uri.file(node.root);
        item.id = `folder:${node.root}`;
        return item;
      }
      case 'group': {
        const count = this.c.states().filter((s) => statusKey(s) === node.status && (!node.root || s.root === node.root)).length;
        const collapsed = node.status === 'completed' || node.status === 'archived';
        const item = new vscode.TreeItem(STATUS_LABELS[node.status] ?? node.status, collapsed ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.Expanded);
        item.description = String(count);
        item.iconPath = statusIcon(node.status);
        item.contextValue = `waymark.group.${node.status}`;
        item.id = `group:${node.root ?? ''}:${node.status}`;
        return item;
      }
      case 'workflow':
        return this.workflowItem(node.state);
      case 'step':
        return stepItem(node.state, node.step);
    }
  }

  private workflowItem(state: WorkflowState): vscode.TreeItem {
    const problems = this.c.problemsFor(state.file);
    const errors = problems.filter((p) => p.severity === 'error').length;
    const warnings = problems.filter((p) => p.severity === 'warning').length;
    const item = new vscode.TreeItem(this.c.displayName(state), state.steps.length ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None);
    const parts = [progress(state)];
    const step = activeStep(state);
    if (step && state.status !== 'completed') parts.push(step);
    if (errors + warnings) parts.push(`$(warning) ${errors + warnings}`);
    if (state.stale) parts.push('stale');
    const holders = this.c.leaseHolders(state.file);
    const live = holders.filter((h) => !h.stale);
    const foreign = live.find((h) => !h.mine);
    if (foreign) parts.push(`locked by ${foreign.lease.owner.agent}${foreign.scope === 'workspace' ? ' (workspace lease)' : ''}`);
    else if (live.length) parts.push('leased by you');
    const elsewhere = this.c.worktrees.forFile(state.file);
    if (elsewhere.length) parts.push(`⎇ ${elsewhere.map(markShort).join(', ')}`);
    item.description = parts.join(' · ').replace(/\$\(warning\) /, '⚠ ');
    item.iconPath = state.stale
      ? new vscode.ThemeIcon('history', new vscode.ThemeColor('problemsWarningIcon.foreground'))
      : foreign
        ? new vscode.ThemeIcon('lock', new vscode.ThemeColor('charts.orange'))
        : statusIcon(statusKey(state), errors > 0);
    item.id = `workflow:${state.file}`;
    // `.lease`: someone else holds a live lease (Take over, Release); `.leaseMine`: we do (Release).
    item.contextValue = `waymark.workflow.${statusKey(state)}${problems.length ? '.problems' : ''}${foreign ? '.lease' : live.length ? '.leaseMine' : ''}`;
    item.command = { command: COMMANDS.openFile, title: 'Open', arguments: [{ file: state.file, key: 'status' }] };
    const md = new vscode.MarkdownString(undefined, true);
    if (holders.length) md.isTrusted = { enabledCommands: [COMMANDS.leaseTakeOver, COMMANDS.leaseRelease] };
    md.appendMarkdown(`**${this.c.displayName(state)}** (\`${state.workflow}\`) — ${STATUS_LABELS[statusKey(state)] ?? state.rawStatus ?? 'no status'}${state.rawStatus && state.rawStatus !== state.status ? ` (\`${state.rawStatus}\`)` : ''}\n\n`);
    md.appendMarkdown(`\`${this.c.relative(state.file)}\` · ${progress(state)} steps${state.scope ? ` · scope ${state.scope}` : ''}\n\n`);
    if (step) md.appendMarkdown(`Current step: \`${step}\`${state.nextStep && state.nextStep !== step ? ` · next: \`${state.nextStep}\`` : ''}\n\n`);
    if (state.blockedReason) md.appendMarkdown(`Blocked: ${state.blockedReason}\n\n`);
    if (state.stale) md.appendMarkdown(`$(history) The file does not read as a workflow right now${state.staleReason ? ` (${escapeMd(state.staleReason)})` : ''}; this is the last good state.\n\n`);
    for (const line of leaseMarkdown(state.file, holders)) md.appendMarkdown(`${line}\n\n`);
    for (const m of elsewhere) md.appendMarkdown(`$(git-branch) ${escapeMd(markSentence(m))}\n\n`);
    for (const p of problems.slice(0, 6)) md.appendMarkdown(`${p.severity === 'error' ? '$(error)' : p.severity === 'warning' ? '$(warning)' : '$(info)'} ${escapeMd(p.message)} \`${p.code}\`\n\n`);
    if (problems.length > 6) md.appendMarkdown(`…and ${problems.length - 6} more in the Problems panel\n`);
    item.tooltip = md;
    item.resourceUri = vscode.Uri.file(state.file);
    return item;
  }

}

function groups(states: WorkflowState[], root?: string): WorkflowsNode[] {
  const present = new Set(states.map(statusKey));
  return STATUS_ORDER.filter((s) => present.has(s)).map((status) => ({ kind: 'group', status, root }));
}

function byRecent(a: WorkflowState, b: WorkflowState): number {
  return (b.updatedAt ?? '').localeCompare(a.updatedAt ?? '') || a.workflow.localeCompare(b.workflow);
}

export function stepItem(state: WorkflowState, step: StepDef): vscode.TreeItem {
  const kind = stepKind(state, step);
  const item = new vscode.TreeItem(step.id, vscode.TreeItemCollapsibleState.None);
  const gate = gateFor(state, step);
  const parts: string[] = [];
  if (kind === 'current') parts.push('current');
  if (kind === 'blocked') parts.push('blocked');
  if (gate) parts.push(`gate ${gateLabel(gate)}`);
  if (step.title && step.title !== step.id) parts.push(step.title);
  item.description = parts.join(' · ');
  item.iconPath = stepIcon(kind);
  item.id = `step:${state.file}:${step.id}`;
  item.contextValue = `waymark.step.${gate ? 'gated' : kind}.${kind}${step.file ? '.hasFile' : ''}`;
  item.tooltip = `${stepTitle(step)} (step ${step.index} of ${state.steps.length}): ${kind}${gate ? ` · gate ${gateLabel(gate)}` : ''}`;
  item.command = { command: COMMANDS.openFile, title: 'Open', arguments: [{ file: state.file, step: step.id }] };
  return item;
}
