// The one reader of the `waymark.*` settings: read once into a typed object, re-read when the
// configuration changes, handed to the core and the surfaces as plain values (rust-analyzer's Config).
import * as vscode from 'vscode';
import { CONFIG_SECTION } from './constants';

export interface Settings {
  /** Globs of workflow files; replace `include` of `.waymark/config.yaml` when non-empty (trusted workspaces only). */
  readonly workflowGlobs: readonly string[];
  /** Recorded as `actor` in history, and the agent this editor holds leases as. */
  readonly actor: string;
  readonly memoryConsolidateOnWrite: boolean;
  readonly statusBarEnabled: boolean;
  /** A workflow id or a path relative to the folder; empty: the most recently updated in-progress one. */
  readonly statusBarWorkflow: string;
  readonly decorationsEnabled: boolean;
  readonly codeLensEnabled: boolean;
  readonly watcherDebounceMs: number;
  readonly diagnosticsUnsavedChanges: boolean;
  /** Mark items another git worktree has ahead of this checkout in the Workflows and Sprint views. */
  readonly worktreesEnabled: boolean;
  /** Run the ticket projection in the background after each state change (off by default). */
  readonly trackerProjectOnChange: boolean;
  /**
   * Folders whose git repositories a ticket store may write outside the workspace: the user
   * setting only (a workspace's own settings come with the cloned repository and are ignored).
   */
  readonly trackerAllowOutside: readonly string[];
}

/** Settings whose change makes a new core (and a rescan). */
export const CORE_SETTING_KEYS: readonly (keyof Settings)[] = ['workflowGlobs', 'actor', 'memoryConsolidateOnWrite'];

export function readSettings(): Settings {
  const cfg = vscode.workspace.getConfiguration(CONFIG_SECTION);
  const debounce = cfg.get<number>('watcher.debounceMs', 100);
  return {
    workflowGlobs: cfg.get<string[]>('workflowGlobs', []).filter((g) => typeof g === 'string' && g.trim()),
    actor: cfg.get<string>('actor', 'vscode')?.trim() || 'vscode',
    memoryConsolidateOnWrite: cfg.get<boolean>('memory.consolidateOnWrite', true),
    statusBarEnabled: cfg.get<boolean>('statusBar.enabled', true),
    statusBarWorkflow: (cfg.get<string>('statusBar.workflow', '') ?? '').trim(),
    decorationsEnabled: cfg.get<boolean>('decorations.enabled', true),
    codeLensEnabled: cfg.get<boolean>('codeLens.enabled', true),
    watcherDebounceMs: Number.isFinite(debounce) ? Math.min(5000, Math.max(0, debounce)) : 100,
    diagnosticsUnsavedChanges: cfg.get<boolean>('diagnostics.unsavedChanges', true),
    worktreesEnabled: cfg.get<boolean>('worktrees.enabled', true),
    trackerProjectOnChange: cfg.get<boolean>('tracker.projectOnChange', false),
    trackerAllowOutside: userStrings(cfg.inspect<unknown>('tracker.allowOutside')?.globalValue),
  };
}

function userStrings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string' && x.trim() !== '').map((x) => x.trim()) : [];
}

/** The keys whose values differ between two readings. */
export function changedSettings(a: Settings, b: Settings): (keyof Settings)[] {
  return (Object.keys(a) as (keyof Settings)[]).filter((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k]));
}
