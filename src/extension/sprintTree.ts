// The Sprint view: per project, what to do next, then epics → stories with ledger status, task
// progress, gate and a drift badge, and where another git worktree has a story ahead of this
// checkout ("review in feat/2-3"). Fed by SprintModel's change event and the model's worktree one.
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { SprintEpic, SprintReport, SprintStory } from '../core/index';
import { COMMANDS, VIEWS } from './constants';
import type { ExtensionModel } from './model';
import type { SprintModel } from './sprintModel';
import { markShort, markSentence } from './worktrees';

export type SprintNode =
  | { kind: 'root'; report: SprintReport }
  | { kind: 'next'; report: SprintReport }
  | { kind: 'epic'; report: SprintReport; epic: SprintEpic }
  | { kind: 'story'; report: SprintReport; story: SprintStory };

const ICONS: Record<string, [string, string?]> = {
  done: ['pass-filled', 'testing.iconPassed'],
  review: ['eye', 'charts.blue'],
  'in-progress': ['play-circle', 'charts.yellow'],
  'ready-for-dev': ['circle-large-outline'],
  backlog: ['circle-small'],
};

function icon(status: string | undefined): vscode.ThemeIcon {
  const [id, color] = ICONS[status ?? ''] ?? ['question'];
  return new vscode.ThemeIcon(id, color ? new vscode.ThemeColor(color) : undefined);
}

/** `4/6` tasks, gate and drift: what a story row says after its key. */
export function storyDescription(s: SprintStory): string {
  const parts = [s.status];
  if (s.fileStatus !== undefined && s.ledgerStatus !== undefined && s.fileStatusMapped !== s.ledgerStatus) parts.push(`file: ${s.fileStatus}`);
  if (s.tasks.total) parts.push(`${s.tasks.done}/${s.tasks.total}`);
  if (s.gate) parts.push(`gate ${s.gate.verdict ?? '?'}`);
  const drift = s.problems.filter((p) => p.severity !== 'info').length;
  if (drift) parts.push(`⚠ ${drift}`);
  return parts.join(' · ');
}

export class SprintTree implements vscode.TreeDataProvider<SprintNode>, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<SprintNode | undefined>();
  readonly onDidChangeTreeData = this.emitter.event;
  readonly view: vscode.TreeView<SprintNode>;
  private readonly subscription: vscode.Disposable;

  constructor(
    private readonly model: SprintModel,
    private readonly c?: ExtensionModel,
  ) {
    this.view = vscode.window.createTreeView(VIEWS.sprint, { treeDataProvider: this, showCollapseAll: true });
    this.subscription = vscode.Disposable.from(
      model.onDidChange(() => {
        this.emitter.fire(undefined);
        const total = model.reports().reduce((n, r) => n + r.problems.filter((p) => p.severity !== 'info').length, 0);
        this.view.badge = total ? { value: total, tooltip: `${total} sprint problem(s): ledger and story files disagree` } : undefined;
      }),
      ...(c ? [c.onDidChange((e) => e.what === 'worktrees' && this.emitter.fire(undefined))] : []),
    );
  }

  getChildren(node?: SprintNode): SprintNode[] {
    const reports = this.model.reports();
    if (!node) {
      if (reports.length === 1) return this.projectChildren(reports[0]);
      return reports.map((report) => ({ kind: 'root', report }));
    }
    if (node.kind === 'root') return this.projectChildren(node.report);
    if (node.kind === 'epic') return node.epic.stories.map((story) => ({ kind: 'story', report: node.report, story }));
    return [];
  }

  private projectChildren(report: SprintReport): SprintNode[] {
    return [{ kind: 'next', report }, ...report.epics.map((epic): SprintNode => ({ kind: 'epic', report, epic }))];
  }

  getTreeItem(node: SprintNode): vscode.TreeItem {
    switch (node.kind) {
      case 'root': {
        const item = new vscode.TreeItem(path.basename(node.report.root), vscode.TreeItemCollapsibleState.Expanded);
        item.iconPath = new vscode.ThemeIcon('project');
        item.contextValue = 'sprintRoot';
        return item;
      }
      case 'next': {
        const n = node.report.next;
        const item = new vscode.TreeItem(n ? `Next: ${n.action}${n.storyKey ? ` ${n.storyKey}` : ''}` : 'Next: nothing — every story is done', vscode.TreeItemCollapsibleState.None);
        item.description = n?.reason;
        item.iconPath = new vscode.ThemeIcon('arrow-right');
        item.contextValue = 'sprintNext';
        const s = n?.storyKey ? node.report.stories.find((x) => x.key === n.storyKey) : undefined;
        if (s) item.command = { command: COMMANDS.openStory, title: 'Open story', arguments: [{ key: s.key, root: node.report.root }] };
        return item;
      }
      case 'epic': {
        const e = node.epic;
        const done = e.stories.filter((s) => s.status === 'done').length;
        const item = new vscode.TreeItem(`Epic ${e.id}${e.title ? `: ${e.title}` : ''}`, e.ledgerStatus === 'done' ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.Expanded);
        item.description = `${e.ledgerStatus ?? 'not in ledger'} · ${done}/${e.stories.length}${e.retrospective ? ` · retro ${e.retrospective}` : ''}${e.problems.length ? ` · ⚠ ${e.problems.length}` : ''}`;
        item.iconPath = icon(e.ledgerStatus);
        item.contextValue = 'sprintEpic';
        item.id = `${node.report.root}#epic-${e.id}`;
        return item;
      }
      case 'story': {
        const s = node.story;
        const item = new vscode.TreeItem(s.key, vscode.TreeItemCollapsibleState.None);
        const elsewhere = this.c?.worktrees.forStory(node.report.root, s.key) ?? [];
        item.description = storyDescription(s) + (elsewhere.length ? ` · ⎇ ${elsewhere.map(markShort).join(', ')}` : '');
        const drift = s.problems.some((p) => p.severity !== 'info');
        item.iconPath = drift ? new vscode.ThemeIcon('warning', new vscode.ThemeColor('list.warningForeground')) : icon(s.status);
        item.contextValue = `sprintStory${s.file ? '.file' : ''}.${s.status}`;
        item.id = `${node.report.root}#${s.key}`;
        const md = new vscode.MarkdownString(undefined, true);
        md.appendMarkdown(`**${s.key}**${s.title ? ` — ${s.title}` : ''}\n\n`);
        md.appendMarkdown(`ledger: \`${s.ledgerRaw ?? '—'}\` · file: \`${s.fileStatus ?? (s.file ? 'no Status line' : 'no file')}\` · tasks ${s.tasks.done}/${s.tasks.total}\n\n`);
        for (const p of s.problems) md.appendMarkdown(`- $(warning) ${p.message}\n`);
        for (const m of elsewhere) md.appendMarkdown(`\n$(git-branch) ${markSentence(m)}\n`);
        item.tooltip = md;
        item.command = { command: COMMANDS.openStory, title: 'Open story', arguments: [{ key: s.key, root: node.report.root }] };
        return item;
      }
    }
  }

  dispose(): void {
    this.subscription.dispose();
    this.view.dispose();
    this.emitter.dispose();
  }
}
