// The Memory view: workflow → decisions / learnings / summaries, and memories by entity.
// Listing opens the memory store, so it happens only when the view is shown, and never in
// Restricted Mode.
import * as path from 'node:path';
import * as vscode from 'vscode';
import { errorMessage, memoryRelPath as relPath } from '../core/index';
import type { EntityRecord, MemoryRecord, MemoryType } from '../core/index';
import { VIEWS } from './constants';
import { Disposable } from './disposable';
import type { MemoryAccess } from './memoryAccess';
import type { ExtensionModel } from './model';

export type MemoryNode =
  | { kind: 'workflow'; root: string; file: string; label: string }
  | { kind: 'group'; root: string; file: string; type: MemoryType }
  | { kind: 'memory'; root: string; memory: MemoryRecord }
  | { kind: 'entities'; root: string }
  | { kind: 'entityKind'; root: string; entityKind: string }
  | { kind: 'entity'; root: string; entity: EntityRecord }
  | { kind: 'info'; label: string; detail?: string };

const GROUP_LABEL: Record<MemoryType, string> = { decision: 'Decisions', learning: 'Learnings', summary: 'Summaries' };
const GROUP_ICON: Record<MemoryType, string> = { decision: 'law', learning: 'lightbulb', summary: 'notebook' };

export class MemoryTree extends Disposable implements vscode.TreeDataProvider<MemoryNode> {
  private readonly emitter = this.register(new vscode.EventEmitter<MemoryNode | undefined>());
  readonly onDidChangeTreeData = this.emitter.event;
  readonly view: vscode.TreeView<MemoryNode>;
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly model: ExtensionModel,
    private readonly memory: MemoryAccess,
  ) {
    super();
    this.view = this.register(vscode.window.createTreeView(VIEWS.memory, { treeDataProvider: this, showCollapseAll: true }));
    this.register({ dispose: () => clearTimeout(this.timer) });
    this.register(
      model.onDidChange((e) => {
        if (e.what === 'trust' || e.what === 'roots') return this.refresh();
        // Listing memory opens the store: only for a view someone looks at, and not per keystroke.
        if (e.what !== 'states' || !this.view.visible) return;
        clearTimeout(this.timer);
        this.timer = setTimeout(() => this.refresh(), 500);
      }),
    );
  }

  refresh(): void {
    this.emitter.fire(undefined);
  }

  getTreeItem(n: MemoryNode): vscode.TreeItem {
    const C = vscode.TreeItemCollapsibleState;
    switch (n.kind) {
      case 'workflow': {
        const it = new vscode.TreeItem(n.label, C.Collapsed);
        it.iconPath = new vscode.ThemeIcon('milestone');
        it.description = relPath(n.root, n.file);
        it.contextValue = 'waymark.memory.workflow';
        it.resourceUri = vscode.Uri.file(n.file);
        return it;
      }
      case 'group': {
        const it = new vscode.TreeItem(GROUP_LABEL[n.type], C.Collapsed);
        it.iconPath = new vscode.ThemeIcon(GROUP_ICON[n.type]);
        it.contextValue = `waymark.memory.group.${n.type}`;
        return it;
      }
      case 'memory': {
        const m = n.memory;
        const it = new vscode.TreeItem(m.title ?? m.text.split('\n')[0].slice(0, 120), C.None);
        it.iconPath = new vscode.ThemeIcon(m.type === 'learning' && m.category === 'error' ? 'bug' : m.type === 'learning' && m.category === 'security' ? 'shield' : GROUP_ICON[m.type]);
        it.description = [m.category, m.source.step, m.createdAt.slice(0, 10)].filter(Boolean).join(' · ');
        const md = new vscode.MarkdownString();
        md.appendMarkdown(`**${m.type}${m.category ? ` / ${m.category}` : ''}**\n\n`);
        md.appendText(m.text);
        if (m.rationale) md.appendMarkdown('\n\n_Because:_ ').appendText(m.rationale);
        if (m.alternatives?.length) md.appendMarkdown('\n\n_Alternatives:_ ').appendText(m.alternatives.join('; '));
        md.appendMarkdown('\n\n---\n\n').appendText(sourceText(m));
        it.tooltip = md;
        it.contextValue = `waymark.memory.item.${m.type}`;
        if (m.source.workflow) it.command = { command: 'vscode.open', title: 'Open', arguments: [vscode.Uri.file(path.resolve(n.root, m.source.workflow))] };
        return it;
      }
      case 'entities': {
        const it = new vscode.TreeItem('By entity', C.Collapsed);
        it.iconPath = new vscode.ThemeIcon('type-hierarchy');
        it.contextValue = 'waymark.memory.entities';
        return it;
      }
      case 'entityKind': {
        const it = new vscode.TreeItem(n.entityKind, C.Collapsed);
        it.iconPath = new vscode.ThemeIcon('symbol-class');
        return it;
      }
      case 'entity': {
        const it = new vscode.TreeItem(n.entity.name, C.Collapsed);
        it.iconPath = new vscode.ThemeIcon(n.entity.kind === 'file' ? 'file' : n.entity.kind === 'agent' ? 'person' : n.entity.kind === 'step' ? 'debug-step-over' : 'symbol-misc');
        it.contextValue = 'waymark.memory.entity';
        it.tooltip = n.entity.id;
        return it;
      }
      case 'info': {
        const it = new vscode.TreeItem(n.label, C.None);
        it.iconPath = new vscode.ThemeIcon('info');
        it.tooltip = n.detail;
        return it;
      }
    }
  }

  async getChildren(n?: MemoryNode): Promise<MemoryNode[]> {
    try {
      return await this.children(n);
    } catch (e) {
      this.model.log.error(`[memory] tree: ${errorMessage(e)}`);
      return [{ kind: 'info', label: `Memory unavailable: ${errorMessage(e)}` }];
    }
  }

  private async children(n?: MemoryNode): Promise<MemoryNode[]> {
    if (!n) {
      if (!this.memory.available) {
        this.view.message = 'Memory stays closed in Restricted Mode: opening it writes .waymark/memory. Trust the folder to use it.';
        return [];
      }
      const out: MemoryNode[] = [];
      let degraded: string | undefined;
      for (const root of this.model.roots) {
        const { items, engine } = await this.memory.service(root).list({ limit: 5000 });
        if (engine === 'journal') degraded = (await this.memory.service(root).status({ waitMs: 0 })).line;
        const files = new Set(items.map((m) => m.source.workflow).filter((w): w is string => !!w));
        for (const rel of [...files].sort()) {
          const file = path.resolve(root, rel);
          const st = this.model.get(file);
          out.push({ kind: 'workflow', root, file, label: st ? this.model.displayName(st) : path.basename(rel) });
        }
        if (items.length) out.push({ kind: 'entities', root });
      }
      this.view.message = degraded;
      return out;
    }
    if (n.kind === 'workflow') {
      const { items } = await this.memory.service(n.root).list({ workflowFile: n.file });
      return (['decision', 'learning', 'summary'] as MemoryType[]).filter((t) => items.some((m) => m.type === t)).map((type) => ({ kind: 'group', root: n.root, file: n.file, type }));
    }
    if (n.kind === 'group') {
      const { items } = await this.memory.service(n.root).list({ workflowFile: n.file, types: [n.type] });
      return items.map((memory) => ({ kind: 'memory', root: n.root, memory }));
    }
    if (n.kind === 'entities') {
      const { entities } = await this.memory.service(n.root).graph();
      return [...new Set(entities.map((e) => String(e.kind)))].sort().map((entityKind) => ({ kind: 'entityKind', root: n.root, entityKind }));
    }
    if (n.kind === 'entityKind') {
      const { entities } = await this.memory.service(n.root).graph();
      return entities.filter((e) => e.kind === n.entityKind).sort((a, b) => a.name.localeCompare(b.name)).map((entity) => ({ kind: 'entity', root: n.root, entity }));
    }
    if (n.kind === 'entity') {
      const r = await this.memory.service(n.root).recall({ entity: n.entity.id, limit: 50 });
      return r.items.filter((i) => i.distance === 0).map((i) => ({ kind: 'memory', root: n.root, memory: i.memory }));
    }
    return [];
  }
}

export function sourceText(m: MemoryRecord): string {
  const s = m.source;
  return [s.workflow, s.step && `step ${s.step}`, s.agent && `agent ${s.agent}`, s.session && `session ${s.session}`, s.origin && `via ${s.origin}`, m.createdAt.slice(0, 16).replace('T', ' ')].filter(Boolean).join(' · ');
}

