// Memory surfaces: the Memory tree, record/recall commands, the knowledge-graph picture,
// session start/end and hover lines. Kuzu opens lazily on first use (never at activation).
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { StateCore, WorkflowState } from '../core/index';
import { errorMessage, sharedMemoryService, disposeSharedMemoryServices, LEARNING_CATEGORIES, memoryRelPath as relPath } from '../core/index';
import type { MemoryService, EntityRecord, MemoryRecord, MemoryType, RelationRecord } from '../core/index';
import { MEMORY_COMMANDS, VIEWS } from './constants';


export interface MemoryDeps {
  /** Read at each use: workspace folders can change after activation. */
  readonly roots: string[];
  logger: vscode.LogOutputChannel;
  core: StateCore;
  /** The name a workflow goes by on screen (as in the Workflows view). */
  displayName?: (state: WorkflowState) => string;
}

let active: { deps: MemoryDeps; tree?: MemoryTree } | undefined;

/** The Memory view's data (for the test snapshot); undefined when memory features are off. */
export function memoryTreeProvider(): vscode.TreeDataProvider<unknown> | undefined {
  return active?.tree as vscode.TreeDataProvider<unknown> | undefined;
}

/** What a caller can pass to the record commands instead of answering prompts. */
interface RecordArgs {
  file?: string;
  step?: string | null;
  text: string;
  rationale?: string;
  alternatives?: string[];
  category?: string;
}

function rootFor(deps: MemoryDeps, file?: string): string | undefined {
  if (file) {
    const st = deps.core.get(file);
    if (st) return st.root;
    const hit = deps.roots.filter((r) => file === r || file.startsWith(r + path.sep)).sort((a, b) => b.length - a.length)[0];
    if (hit) return hit;
  }
  return deps.roots[0];
}

function service(deps: MemoryDeps, root: string): MemoryService {
  return sharedMemoryService(root, { logger: deps.logger, holdMs: 3000, origin: 'vscode', config: { waitMs: 1000 } });
}

/** Lines for the step hover: the step's decisions and learnings (most relevant first). */
export async function memoryHoverLines(file: string, stepId: string): Promise<string[]> {
  if (!active) return [];
  const root = rootFor(active.deps, file);
  if (!root) return [];
  try {
    const r = await service(active.deps, root).recall({ workflow: file, step: stepId, types: ['decision', 'learning'], limit: 6 }, { waitMs: 300 });
    return r.items
      .filter((i) => i.distance === 0)
      .map((i) => `${i.memory.type === 'decision' ? '$(law)' : '$(lightbulb)'} ${escapeMd(i.memory.text)}${i.memory.rationale ? ` — ${escapeMd(i.memory.rationale)}` : ''}${i.superseded ? ' _(superseded)_' : ''}`);
  } catch (e) {
    active.deps.logger.warn(`[memory] hover: ${errorMessage(e)}`);
    return [];
  }
}

/** `memory: ok (…)` / `memory: degraded: <reason> …` for the status bar tooltip (first root). */
export async function memoryStatusLine(): Promise<string | undefined> {
  if (!active) return undefined;
  const root = active.deps.roots[0];
  if (!root) return undefined;
  try {
    return (await service(active.deps, root).status({ waitMs: 200 })).line;
  } catch (e) {
    return `memory: degraded: ${errorMessage(e)}`;
  }
}

function escapeMd(s: string): string {
  return s.replace(/[\\`*_{}[\]<>|]/g, (c) => `\\${c}`).slice(0, 300);
}

// ---- tree -------------------------------------------------------------------------------------

type Node =
  | { kind: 'workflow'; root: string; file: string; label: string }
  | { kind: 'group'; root: string; file: string; type: MemoryType }
  | { kind: 'memory'; root: string; memory: MemoryRecord }
  | { kind: 'entities'; root: string }
  | { kind: 'entityKind'; root: string; entityKind: string }
  | { kind: 'entity'; root: string; entity: EntityRecord }
  | { kind: 'info'; label: string; detail?: string };

const GROUP_LABEL: Record<MemoryType, string> = { decision: 'Decisions', learning: 'Learnings', summary: 'Summaries' };
const GROUP_ICON: Record<MemoryType, string> = { decision: 'law', learning: 'lightbulb', summary: 'notebook' };

class MemoryTree implements vscode.TreeDataProvider<Node> {
  private readonly emitter = new vscode.EventEmitter<Node | undefined>();
  readonly onDidChangeTreeData = this.emitter.event;
  view?: vscode.TreeView<Node>;

  constructor(private readonly deps: MemoryDeps) {}

  refresh(): void {
    this.emitter.fire(undefined);
  }

  dispose(): void {
    this.emitter.dispose();
  }

  getTreeItem(n: Node): vscode.TreeItem {
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

  async getChildren(n?: Node): Promise<Node[]> {
    try {
      return await this.children(n);
    } catch (e) {
      this.deps.logger.error(`[memory] tree: ${errorMessage(e)}`);
      return [{ kind: 'info', label: `Memory unavailable: ${errorMessage(e)}` }];
    }
  }

  private async children(n?: Node): Promise<Node[]> {
    if (!n) {
      const out: Node[] = [];
      let degraded: string | undefined;
      for (const root of this.deps.roots) {
        const { items, engine } = await service(this.deps, root).list({ limit: 5000 });
        if (engine === 'journal') degraded = (await service(this.deps, root).status({ waitMs: 0 })).line;
        const files = new Set(items.map((m) => m.source.workflow).filter((w): w is string => !!w));
        for (const rel of [...files].sort()) {
          const file = path.resolve(root, rel);
          const st = this.deps.core.get(file);
          out.push({ kind: 'workflow', root, file, label: st ? (this.deps.displayName?.(st) ?? st.workflow) : path.basename(rel) });
        }
        if (items.length) out.push({ kind: 'entities', root });
      }
      if (this.view) this.view.message = degraded;
      return out;
    }
    if (n.kind === 'workflow') {
      const { items } = await service(this.deps, n.root).list({ workflowFile: n.file });
      return (['decision', 'learning', 'summary'] as MemoryType[]).filter((t) => items.some((m) => m.type === t)).map((type) => ({ kind: 'group', root: n.root, file: n.file, type }));
    }
    if (n.kind === 'group') {
      const { items } = await service(this.deps, n.root).list({ workflowFile: n.file, types: [n.type] });
      return items.map((memory) => ({ kind: 'memory', root: n.root, memory }));
    }
    if (n.kind === 'entities') {
      const { entities } = await service(this.deps, n.root).graph();
      return [...new Set(entities.map((e) => String(e.kind)))].sort().map((entityKind) => ({ kind: 'entityKind', root: n.root, entityKind }));
    }
    if (n.kind === 'entityKind') {
      const { entities } = await service(this.deps, n.root).graph();
      return entities.filter((e) => e.kind === n.entityKind).sort((a, b) => a.name.localeCompare(b.name)).map((entity) => ({ kind: 'entity', root: n.root, entity }));
    }
    if (n.kind === 'entity') {
      const r = await service(this.deps, n.root).recall({ entity: n.entity.id, limit: 50 });
      return r.items.filter((i) => i.distance === 0).map((i) => ({ kind: 'memory', root: n.root, memory: i.memory }));
    }
    return [];
  }
}

function sourceText(m: MemoryRecord): string {
  const s = m.source;
  return [s.workflow, s.step && `step ${s.step}`, s.agent && `agent ${s.agent}`, s.session && `session ${s.session}`, s.origin && `via ${s.origin}`, m.createdAt.slice(0, 16).replace('T', ' ')].filter(Boolean).join(' · ');
}

// ---- commands ---------------------------------------------------------------------------------

/** A workflow file from a command argument (tree node, Uri, state, path) or the active editor, or asked. */
async function pickWorkflow(deps: MemoryDeps, arg: unknown, optional: boolean): Promise<{ file?: string; state?: WorkflowState } | undefined> {
  let file: string | undefined;
  if (arg instanceof vscode.Uri) file = arg.fsPath;
  else if (typeof arg === 'string') file = arg;
  else if (arg && typeof arg === 'object') {
    const o = arg as Record<string, unknown>;
    if (typeof o.file === 'string') file = o.file;
    else if (o.state && typeof (o.state as WorkflowState).file === 'string') file = (o.state as WorkflowState).file;
    else if (o.memory && typeof (o.memory as MemoryRecord).source?.workflow === 'string' && typeof o.root === 'string') file = path.resolve(o.root as string, (o.memory as MemoryRecord).source.workflow!);
  }
  if (!file) {
    const ed = vscode.window.activeTextEditor?.document;
    if (ed && ed.uri.scheme === 'file' && deps.core.get(ed.uri.fsPath)) file = ed.uri.fsPath;
  }
  if (file) return { file, state: deps.core.get(file) };
  const states = deps.core.list();
  const items: (vscode.QuickPickItem & { file?: string })[] = states.map((s) => ({ label: s.workflow, description: relPath(s.root, s.file), file: s.file }));
  if (optional) items.unshift({ label: '$(globe) No workflow', description: 'the whole workspace' });
  if (!items.length) return optional ? {} : undefined;
  const pick = await vscode.window.showQuickPick(items, { placeHolder: 'Which workflow?' });
  if (!pick) return undefined;
  return pick.file ? { file: pick.file, state: deps.core.get(pick.file) } : {};
}

async function pickStep(state: WorkflowState | undefined, arg: unknown): Promise<string | null | undefined> {
  if (arg && typeof arg === 'object' && typeof (arg as { step?: unknown }).step === 'string') return (arg as { step: string }).step;
  if (!state?.steps.length) return null;
  const items: (vscode.QuickPickItem & { step: string | null })[] = [{ label: '$(milestone) Whole workflow', step: null }, ...state.steps.map((s) => ({ label: s.id, description: s.title, step: s.id }))];
  const cur = items.find((i) => i.step === state.currentStep);
  if (cur) cur.description = `${cur.description ?? ''} (current)`.trim();
  const pick = await vscode.window.showQuickPick(items, { placeHolder: 'Which step is it about?' });
  return pick ? pick.step : undefined;
}

export function registerMemoryFeatures(context: vscode.ExtensionContext, deps: MemoryDeps): vscode.Disposable {
  const tree = new MemoryTree(deps);
  active = { deps, tree };
  const view = vscode.window.createTreeView(VIEWS.memory, { treeDataProvider: tree, showCollapseAll: true });
  tree.view = view;
  const disposables: vscode.Disposable[] = [tree, view];
  let timer: NodeJS.Timeout | undefined;
  disposables.push(
    deps.core.onDidChange(() => {
      if (!view.visible) return;
      if (timer) clearTimeout(timer);
      timer = setTimeout(() => tree.refresh(), 500);
    }),
  );

  const wrap = (action: string, fn: (...args: unknown[]) => Promise<unknown>) => async (...args: unknown[]) => {
    try {
      return await fn(...args);
    } catch (e) {
      deps.logger.error(`[memory] ${action} failed: ${errorMessage(e)}`);
      // Not awaited: a command must not wait for someone to dismiss the notification.
      void vscode.window.showErrorMessage(`${action} failed: ${errorMessage(e)}`, 'Show Log').then((b) => b && deps.logger.show(true));
      return undefined;
    }
  };

  /**
   * Records a decision or learning. Asks for each part; a caller (a script, a test, a keybinding)
   * can give them instead: `{ file, step?, text, rationale?, alternatives?, category? }`, and
   * then nothing is asked. Returns what the memory service stored.
   */
  const record = async (type: 'decision' | 'learning', arg: unknown) => {
    const given = arg && typeof arg === 'object' && typeof (arg as { text?: unknown }).text === 'string' ? (arg as RecordArgs) : undefined;
    if (given && !given.text.trim()) throw new Error('the text is empty');
    const wf = await pickWorkflow(deps, arg, true);
    if (!wf) return undefined;
    const step = given ? (given.step ?? null) : wf.state ? await pickStep(wf.state, arg) : null;
    if (step === undefined) return undefined;
    let category: string | undefined;
    if (type === 'learning') {
      if (given) {
        category = given.category ?? 'pattern';
        if (!(LEARNING_CATEGORIES as readonly string[]).includes(category)) throw new Error(`unknown learning category "${category}" (one of ${LEARNING_CATEGORIES.join(', ')})`);
      } else {
        const pick = await vscode.window.showQuickPick(
          LEARNING_CATEGORIES.map((c) => ({ label: c })),
          { placeHolder: 'What kind of learning?' },
        );
        if (!pick) return undefined;
        category = pick.label;
      }
    }
    const text = given ? given.text.trim() : await vscode.window.showInputBox({ prompt: type === 'decision' ? 'What was decided?' : 'What was learned?', validateInput: (v) => (v.trim() ? undefined : 'Say something') });
    if (!text) return undefined;
    let rationale: string | undefined;
    let alternatives: string[] | undefined;
    if (type === 'decision' && given) {
      rationale = given.rationale;
      alternatives = given.alternatives?.filter((a) => typeof a === 'string' && a.trim());
    } else if (type === 'decision') {
      rationale = await vscode.window.showInputBox({ prompt: 'Why? (rationale, optional)' });
      if (rationale === undefined) return undefined;
      const alt = await vscode.window.showInputBox({ prompt: 'Alternatives considered (comma-separated, optional)' });
      if (alt === undefined) return undefined;
      alternatives = alt.split(',').map((s) => s.trim()).filter(Boolean);
    }
    const root = rootFor(deps, wf.file);
    if (!root) throw new Error('open a folder first');
    const res = await service(deps, root).record({
      type,
      text,
      category,
      rationale: rationale || undefined,
      alternatives,
      decidedBy: type === 'decision' ? 'user' : undefined,
      workflow: wf.file,
      step: step ?? undefined,
      agent: wf.state?.delegation?.agent,
    });
    tree.refresh();
    vscode.window.setStatusBarMessage(`$(check) Recorded ${type}${res.stored === 'inbox' ? ' (kept in the memory inbox)' : ''}`, 4000);
    return res;
  };

  disposables.push(
    vscode.commands.registerCommand(MEMORY_COMMANDS.recordDecision, wrap('Record decision', (arg) => record('decision', arg))),
    vscode.commands.registerCommand(MEMORY_COMMANDS.recordLearning, wrap('Record learning', (arg) => record('learning', arg))),
    vscode.commands.registerCommand(
      MEMORY_COMMANDS.recall,
      wrap('Recall', async (arg) => {
        const wf = await pickWorkflow(deps, arg, true);
        if (!wf) return;
        const text = await vscode.window.showInputBox({ prompt: wf.file ? 'Filter by words (optional)' : 'Recall what? (words)' });
        if (text === undefined) return;
        const root = rootFor(deps, wf.file);
        if (!root) return;
        const r = await service(deps, root).recall({ workflow: wf.file, text: text || undefined, limit: 50 });
        const items = r.items.map((i) => ({
          label: `${i.memory.type === 'decision' ? '$(law)' : i.memory.type === 'summary' ? '$(notebook)' : '$(lightbulb)'} ${i.memory.text.split('\n')[0]}`,
          description: `${i.reason}${i.superseded ? ' · superseded' : ''}`,
          detail: sourceText(i.memory),
          item: i,
        }));
        if (!items.length) {
          void vscode.window.showInformationMessage(r.degraded ? `Nothing recalled (memory degraded: ${r.degraded}).` : 'Nothing recalled.');
          return;
        }
        const pick = await vscode.window.showQuickPick(items, { placeHolder: `${items.length} memories${r.engine === 'journal' ? ' (memory degraded: from the journal)' : ''}`, matchOnDetail: true });
        if (pick?.item.memory.source.workflow) await vscode.window.showTextDocument(vscode.Uri.file(path.resolve(root, pick.item.memory.source.workflow)));
      }),
    ),
    vscode.commands.registerCommand(
      MEMORY_COMMANDS.showGraph,
      wrap('Show memory graph', async (arg) => {
        const wf = await pickWorkflow(deps, arg, false);
        if (!wf?.file) return;
        const root = rootFor(deps, wf.file)!;
        const g = await service(deps, root).neighbourhood(wf.file, 2);
        const panel = vscode.window.createWebviewPanel('waymark.memoryGraph', `Memory: ${wf.state ? (deps.displayName?.(wf.state) ?? wf.state.workflow) : path.basename(wf.file)}`, vscode.ViewColumn.Beside, { enableScripts: false });
        panel.webview.html = graphHtml(g.center, g.entities, g.relations, g.memories, panel.webview.cspSource);
      }),
    ),
    vscode.commands.registerCommand(
      MEMORY_COMMANDS.sessionStart,
      wrap('Start session', async (arg) => {
        const objective = await vscode.window.showInputBox({ prompt: 'Session objective (optional)' });
        if (objective === undefined) return;
        const wf = await pickWorkflow(deps, arg, true);
        const root = rootFor(deps, wf?.file);
        if (!root) return;
        const s = await service(deps, root).sessionStart({ objective: objective || undefined, workflow: wf?.file });
        tree.refresh();
        const b = await vscode.window.showInformationMessage(`Session ${s.session.id} started; ${s.recall.length} memories recalled.`, 'Open Session State');
        if (b) await vscode.window.showTextDocument(vscode.Uri.file(service(deps, root).paths.hot));
      }),
    ),
    vscode.commands.registerCommand(
      MEMORY_COMMANDS.sessionEnd,
      wrap('End session', async () => {
        const summary = await vscode.window.showInputBox({ prompt: 'Session summary (optional: derived from the hot memory when empty)' });
        if (summary === undefined) return;
        const root = rootFor(deps, vscode.window.activeTextEditor?.document.uri.fsPath);
        if (!root) return;
        const r = await service(deps, root).sessionEnd({ summary: summary || undefined });
        tree.refresh();
        void vscode.window.showInformationMessage(`Session ${r.session?.id ?? ''} ended; ${r.moved} notes moved to the cold memory file.`);
      }),
    ),
  );

  return new vscode.Disposable(() => {
    if (timer) clearTimeout(timer);
    for (const d of disposables) d.dispose();
    active = undefined;
    void disposeSharedMemoryServices().catch((e) => deps.logger.warn(`[memory] closing: ${errorMessage(e)}`));
  });
}

// ---- graph picture ----------------------------------------------------------------------------

function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** A radial SVG: the workflow in the middle, related entities around it, memories on the rim. */
export function graphHtml(center: string, entities: EntityRecord[], relations: RelationRecord[], memories: { memory: MemoryRecord; entity: string }[], cspSource: string): string {
  const W = 900;
  const H = 700;
  const cx = W / 2;
  const cy = H / 2;
  const pos = new Map<string, [number, number]>();
  pos.set(center, [cx, cy]);
  const others = entities.filter((e) => e.id !== center);
  others.forEach((e, i) => {
    const a = (2 * Math.PI * i) / Math.max(1, others.length);
    pos.set(e.id, [cx + 180 * Math.cos(a), cy + 180 * Math.sin(a)]);
  });
  const mems = memories.slice(0, 60);
  const parts: string[] = [];
  for (const r of relations) {
    const a = pos.get(r.from);
    const b = pos.get(r.to);
    if (!a || !b) continue;
    parts.push(`<line x1="${a[0]}" y1="${a[1]}" x2="${b[0]}" y2="${b[1]}" class="rel"/><text x="${(a[0] + b[0]) / 2}" y="${(a[1] + b[1]) / 2}" class="rl">${esc(r.relation)}</text>`);
  }
  mems.forEach(({ memory, entity }, i) => {
    const p = pos.get(entity);
    if (!p) return;
    const a = (2 * Math.PI * i) / Math.max(1, mems.length);
    const x = cx + 310 * Math.cos(a);
    const y = cy + 300 * Math.sin(a);
    parts.push(`<line x1="${p[0]}" y1="${p[1]}" x2="${x}" y2="${y}" class="about"/><circle cx="${x}" cy="${y}" r="6" class="m ${memory.type}"><title>${esc(`${memory.type}: ${memory.text}`)}</title></circle>`);
  });
  for (const e of [...others, entities.find((x) => x.id === center) ?? { id: center, kind: 'workflow', name: center.slice(center.indexOf(':') + 1), createdAt: '' }]) {
    const p = pos.get(e.id)!;
    const r = e.id === center ? 26 : 16;
    parts.push(`<circle cx="${p[0]}" cy="${p[1]}" r="${r}" class="e ${esc(String(e.kind))}"><title>${esc(e.id)}</title></circle><text x="${p[0]}" y="${p[1] + r + 12}" class="el">${esc(e.name.length > 40 ? '…' + e.name.slice(-39) : e.name)}</text>`);
  }
  const n = (k: number, one: string, many = `${one}s`) => `${k} ${k === 1 ? one : many}`;
  // A memory about several entities appears once per entity: count each memory once.
  const counts = { decision: 0, learning: 0, summary: 0 };
  const counted = new Set<string>();
  for (const m of memories) {
    if (counted.has(m.memory.id)) continue;
    counted.add(m.memory.id);
    counts[m.memory.type]++;
  }
  return `<!DOCTYPE html><html><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src ${cspSource} 'unsafe-inline';">
<style>body{font-family:var(--vscode-font-family);color:var(--vscode-foreground)} .rel{stroke:var(--vscode-charts-blue);stroke-width:1.5} .about{stroke:var(--vscode-editorWidget-border,#888);stroke-dasharray:2 3}
.e{fill:var(--vscode-charts-blue);opacity:.85} .e.workflow{fill:var(--vscode-charts-purple)} .e.step{fill:var(--vscode-charts-green)} .e.file{fill:var(--vscode-charts-orange)} .e.agent{fill:var(--vscode-charts-yellow)}
.m.decision{fill:var(--vscode-charts-red)} .m.learning{fill:var(--vscode-charts-yellow)} .m.summary{fill:var(--vscode-charts-green)} text{fill:var(--vscode-foreground);font-size:11px;text-anchor:middle} .rl{font-size:9px;opacity:.7}</style></head>
<body><p>${esc(center)}: ${n(entities.length, 'entity', 'entities')}, ${n(counts.decision, 'decision')}, ${n(counts.learning, 'learning')}, ${n(counts.summary, 'summary', 'summaries')}${memories.length > mems.length ? ` (showing ${mems.length} memories)` : ''}. Hover a dot for its text.</p>
<svg width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" role="img" aria-label="Knowledge neighbourhood of ${esc(center)}">${parts.join('')}</svg></body></html>`;
}
