// Creates every surface and hands it to the container; the test snapshot reads them back.
import * as vscode from 'vscode';
import { errorMessage } from '../core/index';
import { CodeActions } from './codeActions';
import { CodeLenses } from './codeLenses';
import { Commands } from './commands';
import { COMMANDS } from './constants';
import type { Container } from './container';
import { Decorations } from './decorations';
import { DelegationTree } from './delegationTree';
import { Diagnostics } from './diagnostics';
import { GatesTree } from './gatesTree';
import { Hovers } from './hovers';
import { registerLanguageModelTools } from './lmTools';
import { StatusBar } from './statusBar';
import { Watchers } from './watchers';
import { SprintFeatures } from './sprintFeatures';
import { WorkflowsTree } from './workflowsTree';

export interface Features {
  workflows: WorkflowsTree;
  gates: GatesTree;
  delegation: DelegationTree;
  statusBar: StatusBar;
  diagnostics: Diagnostics;
  decorations: Decorations;
  commands: Commands;
  watchers: Watchers;
}

const WORKFLOW_FILES: vscode.DocumentSelector = [
  { scheme: 'file', language: 'markdown' },
  { scheme: 'file', pattern: '**/*.{md,markdown}' },
];

export function createFeatures(c: Container): Features {
  const diagnostics = c.register(new Diagnostics(c));
  const f: Features = {
    workflows: c.register(new WorkflowsTree(c)),
    gates: c.register(new GatesTree(c)),
    delegation: c.register(new DelegationTree(c)),
    statusBar: c.register(new StatusBar(c)),
    diagnostics,
    decorations: c.register(new Decorations(c)),
    commands: c.register(new Commands(c)),
    watchers: c.register(new Watchers(c)),
  };
  c.register(new SprintFeatures(c));
  const lenses = c.register(new CodeLenses(c));
  for (const d of registerLanguageModelTools(c, f.commands)) c.register(d);
  c.register(vscode.languages.registerHoverProvider(WORKFLOW_FILES, new Hovers(c)));
  c.register(vscode.languages.registerCodeActionsProvider(WORKFLOW_FILES, new CodeActions(c, diagnostics), CodeActions.metadata));
  c.register(vscode.languages.registerCodeLensProvider(WORKFLOW_FILES, lenses));
  c.register(vscode.commands.registerCommand(COMMANDS.testSnapshot, (opts?: { maxDepth?: number; only?: 'workflows' | 'memory' }) => snapshot(c, f, opts)));
  c.register(
    vscode.commands.registerCommand(COMMANDS.testSetTrust, (trusted: boolean | undefined) => {
      c.setTrustOverride(trusted);
      return c.canWrite();
    }),
  );
  c.register(
    vscode.commands.registerCommand(COMMANDS.testReveal, async (file: string) => {
      const state = c.get(file);
      if (!state) return false;
      await f.workflows.view.reveal({ kind: 'workflow', state }, { expand: true, select: true, focus: false });
      return true;
    }),
  );
  return f;
}

export interface TreeSnapshot {
  label: string;
  description?: string;
  contextValue?: string;
  icon?: string;
  tooltip?: string;
  children?: TreeSnapshot[];
}

async function tree<T>(provider: vscode.TreeDataProvider<T>, node?: T, depth = 0, maxDepth = 5): Promise<TreeSnapshot[]> {
  const children = (await provider.getChildren(node)) ?? [];
  const out: TreeSnapshot[] = [];
  for (const child of children) {
    const item = await provider.getTreeItem(child);
    const label = typeof item.label === 'string' ? item.label : (item.label?.label ?? '');
    const tooltip = typeof item.tooltip === 'string' ? item.tooltip : item.tooltip?.value;
    out.push({
      label,
      description: typeof item.description === 'string' ? item.description : undefined,
      contextValue: item.contextValue,
      icon: item.iconPath instanceof vscode.ThemeIcon ? item.iconPath.id : undefined,
      tooltip,
      children: depth < maxDepth && item.collapsibleState !== vscode.TreeItemCollapsibleState.None ? await tree(provider, child, depth + 1, maxDepth) : undefined,
    });
  }
  return out;
}

/** Test hook: what each surface shows now, as plain data. */
export async function snapshot(c: Container, f: Features, opts: { maxDepth?: number; only?: 'workflows' | 'memory' } = {}) {
  try {
    if (opts.only === 'workflows') return { workflows: await tree(f.workflows, undefined, 0, opts.maxDepth ?? 5) };
    if (opts.only === 'memory') {
      // Only on request: listing memory opens the Kuzu database.
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const provider = (require('./memoryFeatures') as typeof import('./memoryFeatures')).memoryTreeProvider();
      return { memory: provider ? await tree(provider, undefined, 0, opts.maxDepth ?? 3) : undefined };
    }
    const tooltip = f.statusBar.item.tooltip;
    return {
      workflows: await tree(f.workflows),
      gates: await tree(f.gates),
      delegation: await tree(f.delegation),
      statusBar: {
        visible: !!f.statusBar.current,
        text: f.statusBar.item.text,
        tooltip: typeof tooltip === 'string' ? tooltip : tooltip?.value,
        background: f.statusBar.item.backgroundColor?.id,
        file: f.statusBar.current?.file,
      },
      decorations: Object.fromEntries(f.decorations.rendered),
      fileBadges: Object.fromEntries(
        c.states().map((s) => {
          const d = f.decorations.provideFileDecoration(vscode.Uri.file(s.file));
          return [s.file, d?.badge ?? ''];
        }),
      ),
      states: c.states().map((s) => ({ file: s.file, workflow: s.workflow, status: s.status, currentStep: s.currentStep, stepsCompleted: s.stepsCompleted, stale: !!s.stale, stateHash: s.stateHash })),
      canWrite: c.canWrite(),
      lastError: c.lastError,
      lastInfo: c.lastInfo,
      scans: c.scans,
      lastScanError: c.lastScanError,
      roots: c.roots,
      coreReplacements: c.coreReplacements,
      watchedRoots: f.watchers.watchedRoots,
      watcherFlushes: f.watchers.flushes,
      watcherLastEventAt: f.watchers.lastEventAt,
      watcherLastReloadMs: f.watchers.lastReloadMs,
      watcherEventToModelMs: f.watchers.lastEventToModelMs,
    };
  } catch (e) {
    return { error: errorMessage(e) };
  }
}
