// The test API: what the extension-host tests read, handed out by activate() only when VS Code
// runs extension tests (ExtensionMode.Test). It reads the surfaces through their public parts
// and records what the model, the command runner, the watchers and the decorations announce on
// their events; production classes keep no counters or snapshots for the tests.
//
//   const api = (await vscode.extensions.getExtension('waymark.waymark')!.activate()).test!;
//   const s = await api.snapshot();          // every view, the status bar, states, last error
//   api.setTrust(false);                     // behave as in Restricted Mode (undefined: real)
//   await api.reveal(file);                  // select a workflow in the Workflows view
import * as vscode from 'vscode';
import { errorMessage } from '../core/index';
import type { CommandOutcome } from './commandRunner';
import type { Container } from './container';
import type { DashboardAction, DashboardPaint } from './dashboard';
import type { DashboardModel } from '../core/index';
import type { RenderedDecorations } from './decorations';
import type { WatcherReload } from './watchers';

export interface TreeSnapshot {
  label: string;
  description?: string;
  contextValue?: string;
  icon?: string;
  tooltip?: string;
  children?: TreeSnapshot[];
}

export interface TestApi {
  /** What each surface shows now, as plain data (`only` limits it to one tree; `hover: false` leaves out tooltips made on hover). */
  snapshot(opts?: { maxDepth?: number; only?: 'workflows' | 'memory'; hover?: boolean }): Promise<Record<string, unknown>>;
  /** When the Workflows view made its first workflow row (`performance.now()`), if it has. */
  firstRowAt(): number | undefined;
  /** When the Workflows view was first visible, asked for its top level and a group's rows, and held the first scan (`performance.now()`). */
  firstAsked(): { visible?: number; top?: number; rows?: number; held?: number };
  /** When the first scan first listed the workflows read so far, and how many (`performance.now()`). */
  firstPreview(): { at: number; count: number } | undefined;
  /** The last refresh the Workflows view announced: when, and the rows (undefined: the whole view). */
  lastTreeChange(): { at: number; rows?: string[] } | undefined;
  /** The last watcher reload: when it ended (`performance.now()`) and since the file's first event. */
  lastReload(): { at: number; file: string; eventToModelMs?: number } | undefined;
  /** Whether the project view (Problems panel, dashboard) is computed from the current states. */
  projectFresh(): boolean;
  /** Behave as if the workspace were (un)trusted; undefined restores the real state. Returns canWrite. */
  setTrust(trusted: boolean | undefined): boolean;
  /** Reveals and selects a workflow in the Workflows view (expanded unless `expand: false`); false when it is not in the model. */
  reveal(file: string, opts?: { expand?: boolean }): Promise<boolean>;
  /** Reveals and selects the "Show more" row of a status group in the Workflows view (single folder). */
  revealShowMore(status: string): Promise<void>;
  /** The model's current state of a file (for the bench). */
  state(file: string): { currentStep?: string; stale?: boolean } | undefined;
  /** How many workflows the model holds. */
  count(): number;
  /** The Sprint surfaces: stories with status, description and problem codes; the status bar text. */
  sprint(): ReturnType<Container['sprint']['snapshot']>;
  /** Re-reads the other git worktrees now (the markers in the Workflows and Sprint views). */
  refreshWorktrees(): Promise<void>;
  /** The Sprint view's tree items (label, description, tooltip). */
  sprintTree(): Promise<TreeSnapshot[]>;
  /** The dashboard: open or not, the model last posted, every paint the webview reported and every action taken from it. */
  dashboard(): { open: boolean; model?: DashboardModel; version: number; paints: DashboardPaint[]; actions: DashboardAction[]; project: { computations: number; ticks: number } };
  /** A new core now, as a config change makes one; `beforeSwap` runs after its scan, before it replaces the current one. */
  reconfigure(beforeSwap?: () => Promise<void>): Promise<void>;
  /** A language-model tool's own invoke (where the host refuses vscode.lm.invokeTool to an extension). */
  invokeTool(name: string, input: Record<string, unknown>): Promise<string | undefined>;
}

export function createTestApi(c: Container): TestApi {
  let lastError: { action: string; reason?: string; message: string } | undefined;
  let scans = 0;
  let coreReplacements = 0;
  let lastScanError: string | undefined;
  let flushes = 0;
  let lastReload: WatcherReload | undefined;
  let lastReloadAt: { at: number; file: string; eventToModelMs?: number } | undefined;
  let lastTreeChange: { at: number; rows?: string[] } | undefined;
  let firstPreview: { at: number; count: number } | undefined;
  c.model.onDidPreview(() => (firstPreview ??= { at: performance.now(), count: c.model.listedStates().length }));
  c.workflows.onDidChangeTreeData((e) => {
    const rows = e === undefined ? undefined : (Array.isArray(e) ? e : [e]).flatMap((n) => (n.kind === 'workflow' ? [n.state.file] : []));
    lastTreeChange = { at: performance.now(), rows };
  });
  const rendered = new Map<string, RenderedDecorations>();
  c.runner.onDidRun((o: CommandOutcome) => {
    lastError = o.ok ? undefined : { action: o.action, reason: o.reason, message: o.message ?? '' };
  });
  c.model.onDidScan((s) => {
    scans++;
    if (s.newCore) coreReplacements++;
    lastScanError = s.error;
  });
  c.watchers.onDidFlush(() => flushes++);
  c.watchers.onDidReload((r) => {
    lastReloadAt = { at: performance.now(), file: r.file, eventToModelMs: r.eventToModelMs };
    if (r.eventToModelMs !== undefined) lastReload = r;
  });
  const paints: DashboardPaint[] = [];
  const actions: DashboardAction[] = [];
  c.dashboard.onDidPaint((p) => paints.push(p));
  c.dashboard.onDidAct((a) => actions.push(a));
  c.decorations.onDidRender((r) => (r.what ? rendered.set(r.file, r.what) : rendered.delete(r.file)));

  const snapshot = async (opts: { maxDepth?: number; only?: 'workflows' | 'memory'; hover?: boolean } = {}) => {
    try {
      if (opts.only === 'workflows') return { workflows: await tree(c.workflows, undefined, 0, opts.maxDepth ?? 5, opts.hover ?? true) };
      // Only on request: listing memory opens the memory store.
      if (opts.only === 'memory') return { memory: await tree(c.memoryTree, undefined, 0, opts.maxDepth ?? 3), memoryMessage: c.memoryTree.view.message };
      const m = c.model;
      const bar = c.statusBar;
      const tooltip = bar.item.tooltip;
      return {
        workflows: await tree(c.workflows),
        gates: await tree(c.gates),
        delegation: await tree(c.delegation),
        statusBar: {
          visible: !!bar.current,
          text: bar.item.text,
          tooltip: typeof tooltip === 'string' ? tooltip : tooltip?.value,
          background: bar.item.backgroundColor?.id,
          file: bar.current?.file,
        },
        decorations: Object.fromEntries(rendered),
        fileBadges: Object.fromEntries(m.states().map((s) => [s.file, c.decorations.provideFileDecoration(vscode.Uri.file(s.file))?.badge ?? ''])),
        states: m.states().map((s) => ({ file: s.file, workflow: s.workflow, status: s.status, currentStep: s.currentStep, stepsCompleted: s.stepsCompleted, stale: !!s.stale, staleReason: s.staleReason, stateHash: s.stateHash })),
        canWrite: m.canWrite,
        lastError,
        scans,
        lastScanError,
        roots: m.roots,
        coreReplacements,
        watchedRoots: c.watchers.watchedRoots,
        watcherFlushes: flushes,
        watcherLastReloadMs: lastReload?.reloadMs,
        watcherEventToModelMs: lastReload?.eventToModelMs,
      };
    } catch (e) {
      return { error: errorMessage(e) };
    }
  };

  return {
    snapshot,
    setTrust: (trusted) => {
      c.model.overrideTrust(trusted);
      return c.model.canWrite;
    },
    reveal: async (file, opts) => {
      const state = c.model.get(file);
      if (!state) return false;
      await c.workflows.reveal(state, { expand: opts?.expand ?? true, select: true, focus: false });
      return true;
    },
    revealShowMore: async (status) => {
      // VS Code finds the row by its id (`more::<status>`), whatever the count this element carries.
      await c.workflows.view.reveal({ kind: 'more', status, hidden: 0 }, { select: true, focus: false });
    },
    firstRowAt: () => c.workflows.firstRowAt,
    firstAsked: () => ({ ...c.workflows.firstAsked }),
    firstPreview: () => firstPreview,
    lastTreeChange: () => lastTreeChange,
    lastReload: () => lastReloadAt,
    projectFresh: () => !!c.model.project.fresh(),
    state: (file) => c.model.get(file),
    count: () => c.model.states().length,
    invokeTool: (name, input) => c.invokeTool(name, input),
    reconfigure: (beforeSwap) => c.model.reconfigure('test API', true, beforeSwap),
    sprint: () => c.sprint.snapshot(),
    refreshWorktrees: () => c.model.worktrees.refresh(),
    sprintTree: async () => {
      c.sprint.model.flush();
      return tree(c.sprint.tree, undefined, 0, 4);
    },
    dashboard: () => ({ open: c.dashboard.isOpen, model: c.dashboard.lastModel, version: c.dashboard.modelVersion, paints: [...paints], actions: [...actions], project: { computations: c.model.project.computations, ticks: c.model.project.tickComputations } }),
  };
}

async function tree<T>(provider: vscode.TreeDataProvider<T>, node?: T, depth = 0, maxDepth = 5, hover = true): Promise<TreeSnapshot[]> {
  const children = (await provider.getChildren(node)) ?? [];
  const out: TreeSnapshot[] = [];
  for (const child of children) {
    // What a person sees on hover too (a provider may make tooltips only when asked).
    let item = await provider.getTreeItem(child);
    if (hover && item.tooltip === undefined && provider.resolveTreeItem) item = (await provider.resolveTreeItem(item, child, new vscode.CancellationTokenSource().token)) ?? item;
    const label = typeof item.label === 'string' ? item.label : (item.label?.label ?? '');
    const tooltip = typeof item.tooltip === 'string' ? item.tooltip : item.tooltip?.value;
    out.push({
      label,
      description: typeof item.description === 'string' ? item.description : undefined,
      contextValue: item.contextValue,
      icon: item.iconPath instanceof vscode.ThemeIcon ? item.iconPath.id : undefined,
      tooltip,
      children: depth < maxDepth && item.collapsibleState !== vscode.TreeItemCollapsibleState.None ? await tree(provider, child, depth + 1, maxDepth, hover) : undefined,
    });
  }
  return out;
}
