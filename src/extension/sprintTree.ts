// The Sprint view: per project, what to do next, then epics → stories with ledger status, task
// progress, gate and a drift badge, and where another git worktree has a story ahead of this
// checkout ("review in feat/2-3"). A BMAD v7 project shows its ticket tree instead: what `next`
// answers (ready to start, ready to refine, in progress, blocked with what each waits on), then
// initiative → epics → tickets with state, plan status, assignee and blocked reason; a migrated
// project's archived v6 ledger is one folded History node. Fed by SprintModel's and
// TicketTreeModel's change events and the model's worktree one.
import * as path from 'node:path';
import * as vscode from 'vscode';
import { isArchivedSprint, NO_EPIC, type Epic, type NextGroups, type Problem, type SprintEpic, type SprintReport, type SprintStory, type Ticket } from '../core/index';
import { COMMANDS, VIEWS } from './constants';
import type { ExtensionModel } from './model';
import type { SprintModel } from './sprintModel';
import { epicDescription, epicLabel, ticketDescription, ticketIcon, ticketLabel, ticketMarkdown, ticketProblems } from './ticketPresentation';
import { NEXT_GROUP_LABELS, type TicketTreeModel, type TreeReport } from './ticketTreeModel';
import { markShort, markSentence } from './worktrees';

/** One workspace folder: its v6 sprint and/or its v7 tree. */
export interface SprintProject {
  root: string;
  report?: SprintReport;
  tree?: TreeReport;
}

export type SprintNode =
  | { kind: 'root'; project: SprintProject }
  | { kind: 'next'; report: SprintReport }
  | { kind: 'epic'; report: SprintReport; epic: SprintEpic }
  | { kind: 'story'; report: SprintReport; story: SprintStory }
  | { kind: 'history'; tree: TreeReport }
  | { kind: 'historyItem'; tree: TreeReport; label: string; description?: string; file?: string; line?: number; problem?: Problem }
  | { kind: 'ticketNext'; tree: TreeReport }
  | { kind: 'nextGroup'; tree: TreeReport; group: keyof NextGroups }
  | { kind: 'initiative'; tree: TreeReport }
  | { kind: 'ticketEpic'; tree: TreeReport; epic: Epic }
  | { kind: 'backlog'; tree: TreeReport }
  | { kind: 'ticket'; tree: TreeReport; ticket: Ticket; inGroup?: keyof NextGroups };

/** Every folder with a sprint or a tree, the archive of a migrated one marked as history. */
export function sprintProjects(model: SprintModel, trees?: TicketTreeModel): SprintProject[] {
  const byRoot = new Map<string, SprintProject>();
  for (const report of model.reports()) byRoot.set(report.root, { root: report.root, report });
  for (const tree of trees?.reports() ?? []) byRoot.set(tree.root, { ...byRoot.get(tree.root), root: tree.root, tree });
  return [...byRoot.values()].sort((a, b) => a.root.localeCompare(b.root));
}

/** The v6 reports that are live work (not only a migrated project's archived ledger). */
export function liveReports(model: SprintModel, trees?: TicketTreeModel): SprintReport[] {
  return model.reports().filter((r) => !isArchivedSprint(r, trees?.reports().find((t) => t.root === r.root)?.tree));
}

/** `Next: start 1.6 Quantity stepper`: the first ticket of the first group that can move. */
export function ticketNextLine(tree: TreeReport): { label: string; ticket?: Ticket } {
  const n = tree.next;
  const first = n.readyToStart[0] ? ['start', n.readyToStart[0]] as const : n.readyToRefine[0] ? ['refine', n.readyToRefine[0]] as const : n.inProgress[0] ? ['continue', n.inProgress[0]] as const : undefined;
  if (first) return { label: `Next: ${first[0]} ${ticketLabel(first[1].ticket)}`, ticket: first[1].ticket };
  if (n.blocked.length) return { label: `Next: unblock — ${n.blocked.length} ticket(s) wait` };
  return { label: 'Next: nothing — every ticket is done or dropped' };
}

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
    private readonly trees?: TicketTreeModel,
  ) {
    this.view = vscode.window.createTreeView(VIEWS.sprint, { treeDataProvider: this, showCollapseAll: true });
    this.subscription = vscode.Disposable.from(
      model.onDidChange(() => {
        this.refresh();
      }),
      ...(trees ? [trees.onDidChange(() => this.refresh())] : []),
      ...(c ? [c.onDidChange((e) => e.what === 'worktrees' && this.emitter.fire(undefined))] : []),
    );
  }

  private refresh(): void {
    this.emitter.fire(undefined);
    const v6 = liveReports(this.model, this.trees).reduce((n, r) => n + r.problems.filter((p) => p.severity !== 'info').length, 0);
    const v7 = (this.trees?.reports() ?? []).reduce((n, r) => n + r.problems.filter((p) => p.severity !== 'info').length, 0);
    const total = v6 + v7;
    const what = v7 && v6 ? 'the ticket tree and the ledger have problems' : v7 ? 'the ticket tree has problems' : 'ledger and story files disagree';
    this.view.badge = total ? { value: total, tooltip: `${total} sprint problem(s): ${what}` } : undefined;
  }

  getChildren(node?: SprintNode): SprintNode[] {
    const projects = sprintProjects(this.model, this.trees);
    if (!node) {
      if (projects.length === 1) return this.projectChildren(projects[0]);
      return projects.map((project) => ({ kind: 'root', project }));
    }
    switch (node.kind) {
      case 'root':
        return this.projectChildren(node.project);
      case 'epic':
        return node.epic.stories.map((story) => ({ kind: 'story', report: node.report, story }));
      case 'history':
        return this.historyChildren(node.tree);
      case 'ticketNext':
        return (Object.keys(NEXT_GROUP_LABELS) as (keyof NextGroups)[]).filter((group) => node.tree.next[group].length).map((group) => ({ kind: 'nextGroup', tree: node.tree, group }));
      case 'nextGroup':
        return node.tree.next[node.group].map((i) => ({ kind: 'ticket', tree: node.tree, ticket: i.ticket, inGroup: node.group }));
      case 'initiative': {
        const out: SprintNode[] = node.tree.tree.epics.map((epic) => ({ kind: 'ticketEpic', tree: node.tree, epic }));
        if (node.tree.tree.backlog?.length) out.push({ kind: 'backlog', tree: node.tree });
        return out;
      }
      case 'ticketEpic':
        return this.ticketsOf(node.tree, node.epic.tickets);
      case 'backlog':
        return (node.tree.tree.backlog ?? []).map((ticket) => ({ kind: 'ticket', tree: node.tree, ticket }));
      default:
        return [];
    }
  }

  private ticketsOf(tree: TreeReport, keys: string[]): SprintNode[] {
    const byKey = new Map(tree.tree.tickets.map((t) => [t.key, t]));
    return keys.map((k) => byKey.get(k)).filter((t): t is Ticket => !!t).map((ticket) => ({ kind: 'ticket', tree, ticket }));
  }

  private v6Children(report: SprintReport): SprintNode[] {
    return [{ kind: 'next', report }, ...report.epics.map((epic): SprintNode => ({ kind: 'epic', report, epic }))];
  }

  private projectChildren(project: SprintProject): SprintNode[] {
    const { report, tree } = project;
    if (!tree) return report ? this.v6Children(report) : [];
    const out: SprintNode[] = [{ kind: 'ticketNext', tree }, { kind: 'initiative', tree }];
    // During a migration both exist: the live v6 sprint beside the tree. After it, `archive-v6/` is
    // history: one folded node with the migration check's findings, never counted as work.
    if (report && !isArchivedSprint(report, tree.tree)) out.push(...this.v6Children(report));
    if (tree.tree.archiveV6) out.push({ kind: 'history', tree });
    return out;
  }

  private historyChildren(tree: TreeReport): SprintNode[] {
    const archive = tree.tree.archiveV6!;
    const m = tree.migration;
    const out: SprintNode[] = [];
    const ledger = m?.ledger ?? path.join(archive, 'sprint-status.yaml');
    out.push({ kind: 'historyItem', tree, label: path.basename(ledger), description: m ? `${m.counts.ledgerStories} v6 stories · ${m.counts.matched} matched to tickets` : 'the v6 ledger', file: ledger });
    const epics = path.join(archive, 'epics.md');
    if (m?.ledger !== epics) out.push({ kind: 'historyItem', tree, label: 'epics.md', description: 'the v6 epics', file: epics });
    for (const p of m?.problems ?? []) out.push({ kind: 'historyItem', tree, label: p.message, file: p.file, line: p.range.start.line, problem: p });
    if (m && !m.problems.length) out.push({ kind: 'historyItem', tree, label: 'The tree agrees with the archived ledger', description: 'no migration findings' });
    return out;
  }

  getTreeItem(node: SprintNode): vscode.TreeItem {
    switch (node.kind) {
      case 'root': {
        const item = new vscode.TreeItem(path.basename(node.project.root), vscode.TreeItemCollapsibleState.Expanded);
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
        const item = new vscode.TreeItem(`${e.id === NO_EPIC ? 'No epic' : `Epic ${e.id}`}${e.title ? `: ${e.title}` : ''}`, e.ledgerStatus === 'done' ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.Expanded);
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
      case 'history': {
        const m = node.tree.migration;
        const item = new vscode.TreeItem('History: the v6 sprint (archive-v6)', vscode.TreeItemCollapsibleState.Collapsed);
        const findings = m?.problems.filter((p) => p.severity !== 'info').length ?? 0;
        item.description = `read-only${m ? ` · ${m.counts.ledgerStories} stories` : ''}${findings ? ` · ⚠ ${findings} migration finding(s)` : ''}`;
        item.tooltip = `bmad migrate moved the v6 ledger to ${path.relative(node.tree.root, node.tree.tree.archiveV6!)}. The ticket tree above is the project's work now; this is what the ledger said before, checked against the tree by BMAD's own mapping.`;
        item.iconPath = new vscode.ThemeIcon('history');
        item.contextValue = 'sprintHistory';
        item.id = `${node.tree.root}#history`;
        return item;
      }
      case 'historyItem': {
        const item = new vscode.TreeItem(node.label, vscode.TreeItemCollapsibleState.None);
        item.description = node.description ?? (node.problem ? node.problem.code : undefined);
        item.iconPath = new vscode.ThemeIcon(node.problem ? (node.problem.severity === 'info' ? 'info' : 'warning') : node.file ? 'file' : 'pass', node.problem && node.problem.severity !== 'info' ? new vscode.ThemeColor('list.warningForeground') : undefined);
        item.tooltip = node.problem ? `${node.problem.message}\n\n${path.relative(node.tree.root, node.problem.file)}:${node.problem.range.start.line + 1}` : node.file ? path.relative(node.tree.root, node.file) : undefined;
        item.contextValue = node.problem ? 'sprintMigrationFinding' : 'sprintHistoryFile';
        if (node.file) {
          const line = node.line ?? 0;
          item.command = { command: 'vscode.open', title: 'Open', arguments: [vscode.Uri.file(node.file), { selection: new vscode.Range(line, 0, line, 0), preview: true }] };
        }
        return item;
      }
      case 'ticketNext': {
        const { label, ticket } = ticketNextLine(node.tree);
        const n = node.tree.next;
        const item = new vscode.TreeItem(label, vscode.TreeItemCollapsibleState.Expanded);
        item.description = `${n.readyToStart.length} ready · ${n.inProgress.length} in progress · ${n.blocked.length} blocked`;
        item.iconPath = new vscode.ThemeIcon('arrow-right');
        item.contextValue = 'sprintNext';
        item.id = `${node.tree.root}#v7-next`;
        if (ticket) item.command = { command: COMMANDS.openTicket, title: 'Open ticket', arguments: [{ root: node.tree.root, ref: ticket.key }] };
        return item;
      }
      case 'nextGroup': {
        const items = node.tree.next[node.group];
        // What can start now is open; the rest is one click away (every ticket is in the tree below too).
        const open = node.group === 'readyToStart' || (node.group === 'inProgress' && !node.tree.next.readyToStart.length);
        const item = new vscode.TreeItem(NEXT_GROUP_LABELS[node.group], open ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.Collapsed);
        item.description = String(items.length);
        item.iconPath = new vscode.ThemeIcon(node.group === 'blocked' ? 'circle-slash' : node.group === 'inProgress' ? 'play-circle' : node.group === 'readyToRefine' ? 'edit' : 'arrow-circle-right');
        item.contextValue = `sprintNextGroup.${node.group}`;
        item.id = `${node.tree.root}#v7-next-${node.group}`;
        return item;
      }
      case 'initiative': {
        const t = node.tree.tree;
        const c = node.tree.status.counts;
        const item = new vscode.TreeItem(t.initiative?.title || t.initiative?.slug || path.basename(t.folder), vscode.TreeItemCollapsibleState.Expanded);
        const parts = [`${t.tickets.length} tickets`, ...['done', 'review', 'in-progress'].filter((s) => c[s]).map((s) => `${c[s]} ${s}`)];
        if (t.store !== 'repo') parts.push(`store ${t.store}`);
        if (t.fatal) parts.push('tickets.py refuses it');
        const problems = node.tree.problems.filter((p) => p.severity !== 'info').length;
        if (problems) parts.push(`⚠ ${problems}`);
        item.description = parts.join(' · ');
        const md = new vscode.MarkdownString(`**${t.initiative?.slug ?? path.basename(t.folder)}** — BMAD ticket tree\n\n\`${path.relative(node.tree.root, t.folder)}\` · store \`${t.store}\`\n\n`);
        if (t.fatal) md.appendMarkdown(`$(error) BMAD's tickets.py would refuse this tree: ${t.fatal}\n\n`);
        if (node.tree.status.longestRemainingChain.length) md.appendMarkdown(`Longest remaining chain: ${node.tree.status.longestRemainingChain.map((k) => `\`${t.tickets.find((x) => x.key === k)?.ref ?? k}\``).join(' → ')}\n\n`);
        for (const u of t.unpinnedAfter) md.appendMarkdown(`- $(info) ${u.epic} is declared after ${u.after}, but no ticket of it waits on ${u.after}\n`);
        for (const u of t.undeclaredAfter) md.appendMarkdown(`- $(info) ${u.ref} waits on ${u.names} in ${u.after}, which ${u.epic} does not declare\n`);
        for (const o of t.orderConflict) md.appendMarkdown(`- $(warning) ${o.epic} waits on ${o.after}, which comes later in build order\n`);
        item.tooltip = md;
        item.iconPath = new vscode.ThemeIcon('milestone');
        item.contextValue = 'sprintInitiative';
        item.id = `${node.tree.root}#${t.folder}`;
        if (t.initiative?.file) item.command = { command: 'vscode.open', title: 'Open initiative', arguments: [vscode.Uri.file(t.initiative.file)] };
        return item;
      }
      case 'ticketEpic': {
        const e = node.epic;
        const item = new vscode.TreeItem(epicLabel(e), e.status === 'done' || e.status === 'dropped' ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.Expanded);
        item.description = epicDescription(node.tree, e);
        const md = new vscode.MarkdownString(`**${epicLabel(e)}** \`${e.slug}\`\n\n`);
        for (const a of e.after) md.appendMarkdown(`- after \`${a.epic}\`${a.needs ? `: ${a.needs}` : ''}\n`);
        if (e.gatedBy.length) md.appendMarkdown(`- its epic file waits for ${e.gatedBy.map((g) => `\`${g}\``).join(', ')} to be done\n`);
        item.tooltip = md;
        item.iconPath = new vscode.ThemeIcon(e.status === 'done' ? 'pass-filled' : e.gatedBy.length && e.status !== 'in-progress' ? 'lock' : 'layers', e.status === 'done' ? new vscode.ThemeColor('testing.iconPassed') : undefined);
        item.contextValue = 'sprintTicketEpic';
        item.id = `${node.tree.root}#${e.folder}`;
        if (e.file) item.command = { command: 'vscode.open', title: 'Open epic', arguments: [vscode.Uri.file(e.file)] };
        return item;
      }
      case 'backlog': {
        const n = node.tree.tree.backlog?.length ?? 0;
        const item = new vscode.TreeItem('Backlog', vscode.TreeItemCollapsibleState.Collapsed);
        item.description = `${n} idea(s), not in an epic`;
        item.iconPath = new vscode.ThemeIcon('inbox');
        item.contextValue = 'sprintBacklog';
        item.id = `${node.tree.root}#backlog`;
        return item;
      }
      case 'ticket': {
        const t = node.ticket;
        const item = new vscode.TreeItem(ticketLabel(t), vscode.TreeItemCollapsibleState.None);
        item.description = ticketDescription(node.tree, t);
        const bad = ticketProblems(node.tree, t).some((p) => p.severity !== 'info');
        item.iconPath = bad ? new vscode.ThemeIcon('warning', new vscode.ThemeColor('list.warningForeground')) : ticketIcon(node.tree, t);
        item.tooltip = ticketMarkdown(node.tree, t, { links: false });
        item.contextValue = `sprintTicket.${t.status === 'blocked' ? 'blocked' : t.state}${t.file ? '.file' : ''}${t.plan ? '.plan' : ''}.${node.tree.tree.store === 'repo' ? 'repo' : 'tracker'}`;
        item.id = `${node.tree.root}#${node.inGroup ?? 'tree'}#${t.key}`;
        item.command = { command: COMMANDS.openTicket, title: 'Open ticket', arguments: [{ root: node.tree.root, ref: t.key }] };
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
